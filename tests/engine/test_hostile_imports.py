"""Imported folders come from others: a link at any component, a traversal id or path, a special file, a hard link or
a bad number is refused, no host secret reaches an imported file, and a refused import leaves nothing in --out."""

from __future__ import annotations

import json
import os
import shutil

import pandas as pd
import pytest
import yaml

from sandmle.errors import UsageError
from sandmle.formats import mlebench, mledojo, sandmle_layout
from sandmle.formats.source_files import SourceLimits
from tests.engine.rollout_bundles import make_bundle

SECRET = "PASSWORD=hunter2-3f9a1c"


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """One clean source per format, built once; each test copies the one it breaks."""
    root = tmp_path_factory.mktemp("sources")
    bundle = make_bundle(root / "tasks", kind="binary", rows=60)
    mlebench.export_task(bundle, root / "mlebench")
    sandmle_layout.export_task(bundle, root / "sandmle")
    dojo = root / "mledojo" / "loan-default" / "data"
    (dojo / "public").mkdir(parents=True)
    (dojo / "private").mkdir()
    for path in (bundle / "public").iterdir():
        if path.name != "description.md":
            shutil.copyfile(path, dojo / "public" / path.name)
    (dojo / "public" / "description.txt").write_text("Predict loan defaults.\n")
    pd.read_csv(bundle / "private" / "answers.csv").drop(columns=["leaderboard"]).to_csv(
        dojo / "private" / "test_answer.csv", index=False)
    pd.DataFrame({"rank": range(1, 11), "score": [0.95 - 0.03 * i for i in range(10)]}).to_csv(
        dojo / "private" / "private_leaderboard.csv", index=False)
    return {"bundle": bundle, "root": root}


@pytest.fixture
def host(tmp_path):
    """Host files an attacker wants: a secret file and a folder of settings, outside every source."""
    folder = tmp_path / "host"
    folder.mkdir()
    (folder / "settings.env").write_text(SECRET + "\n")
    (folder / "sample_submission.csv").write_text("id,label\n1,0.5\n")
    (folder / "secret.txt").write_text(SECRET + "\n")
    (folder / "answers.csv").write_text(f"id,label\n{SECRET},yes\n")
    return folder


def copy_source(sources, tmp_path, fmt):
    target = tmp_path / "src"
    shutil.copytree(sources["root"] / fmt, target)
    return target


def leaked(out_dir) -> list[str]:
    return [str(path) for path in out_dir.rglob("*") if path.is_file() and SECRET.encode() in path.read_bytes()]


def assert_refused(call, out_dir, words: str):
    with pytest.raises(UsageError) as refused:
        call()
    assert words in str(refused.value), str(refused.value)
    assert not out_dir.exists() or not any(out_dir.iterdir()), list(out_dir.rglob("*"))
    assert not leaked(out_dir)


def relink(path, target):
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(target)


def task_id(sources):
    return sources["bundle"].name


# Each case: how it breaks the MLE-bench source (root = the export: competitions/<id>, data/<id>/prepared/...).
MLEBENCH_CASES = {
    "description link": lambda root, tid, host: relink(root / "competitions" / tid / "description.md",
                                                        host / "secret.txt"),
    "public folder link": lambda root, tid, host: relink(root / "data" / tid / "prepared" / "public", host),
    "data folder link": lambda root, tid, host: relink(root / "data" / tid, host),
    "prepared folder link": lambda root, tid, host: relink(root / "data" / tid / "prepared", host),
    "file link inside public": lambda root, tid, host: relink(root / "data" / tid / "prepared" / "public" / "train.csv",
                                                              host / "secret.txt"),
    "leaderboard link": lambda root, tid, host: relink(root / "competitions" / tid / "leaderboard.csv",
                                                       host / "secret.txt"),
    "ladder link": lambda root, tid, host: relink(root / "competitions" / tid / "sandmle_ladder.json",
                                                  host / "secret.txt"),
    "answers link": lambda root, tid, host: relink(root / "data" / tid / "prepared" / "private" / "test.csv",
                                                   host / "answers.csv"),
}


@pytest.mark.parametrize("case", sorted(MLEBENCH_CASES))
def test_mlebench_import_follows_no_link(sources, tmp_path, host, case):
    root = copy_source(sources, tmp_path, "mlebench")
    MLEBENCH_CASES[case](root, task_id(sources), host)
    out = tmp_path / "out"
    assert_refused(lambda: mlebench.import_competition(root / "competitions" / task_id(sources), out),
                   out, "link")


def _edit_config(root, tid, **changes):
    path = root / "competitions" / tid / "config.yaml"
    config = yaml.safe_load(path.read_text())
    for key, value in changes.items():
        if key == "answers":
            config["dataset"]["answers"] = value
        else:
            config[key] = value
    path.write_text(yaml.safe_dump(config))


@pytest.mark.parametrize("answers", ["absolute", "../../host/answers.csv"])
def test_mlebench_answers_path_stays_inside_the_data_directory(sources, tmp_path, host, answers):
    root = copy_source(sources, tmp_path, "mlebench")
    _edit_config(root, task_id(sources), answers=str(host / "answers.csv") if answers == "absolute" else answers)
    out = tmp_path / "out"
    assert_refused(lambda: mlebench.import_competition(root / "competitions" / task_id(sources), out),
                   out, "not a relative path inside the source folder")


@pytest.mark.parametrize("bad_id", ["../../escaped", ".hidden", "x" * 200, "semi;colon", "two words"])
def test_mlebench_id_is_one_plain_name(sources, tmp_path, bad_id):
    root = copy_source(sources, tmp_path, "mlebench")
    tid = task_id(sources)
    config_path = root / "competitions" / tid / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["id"] = bad_id
    del config["dataset"]["answers"]  # the default, <id>/prepared/private/test.csv, follows the id
    config_path.write_text(yaml.safe_dump(config))
    # The data sits where the id points, so that only the id check can refuse it (root/data/../../escaped).
    shutil.copytree(root / "data" / tid, root / "data" / bad_id)
    out = tmp_path / "deep" / "er" / "out"
    assert_refused(lambda: mlebench.import_competition(root / "competitions" / tid, out), out, "not a plain name")
    assert not (tmp_path / "deep" / "escaped").exists()


MLEDOJO_CASES = {
    "description link": lambda data, host: relink(data / "public" / "description.txt", host / "secret.txt"),
    "public folder link": lambda data, host: relink(data / "public", host),
    "private folder link": lambda data, host: relink(data / "private", host),
    "answers link": lambda data, host: relink(data / "private" / "test_answer.csv", host / "answers.csv"),
    "leaderboard link": lambda data, host: relink(data / "private" / "private_leaderboard.csv", host / "secret.txt"),
    "file link inside public": lambda data, host: relink(data / "public" / "train.csv", host / "secret.txt"),
}


@pytest.mark.parametrize("case", sorted(MLEDOJO_CASES))
def test_mledojo_import_follows_no_link(sources, tmp_path, host, case):
    root = copy_source(sources, tmp_path, "mledojo")
    MLEDOJO_CASES[case](root / "loan-default" / "data", host)
    out = tmp_path / "out"
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc"), out, "link")


def test_mledojo_data_folder_link_is_refused(sources, tmp_path, host):
    root = copy_source(sources, tmp_path, "mledojo")
    outside = tmp_path / "elsewhere"
    shutil.move(root / "loan-default" / "data", outside)
    (root / "loan-default" / "data").symlink_to(outside)
    out = tmp_path / "out"
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc"), out, "link")


SANDMLE_CASES = {
    "public folder link": lambda public, host: relink(public, host),
    "prepared folder link": lambda public, host: relink(public.parent, host),
    "description link": lambda public, host: relink(public / "description.md", host / "secret.txt"),
    "evaluator link": lambda public, host: relink(public / "evaluator.py", host / "secret.txt"),
    "answers link": lambda public, host: relink(public / "answer.csv", host / "answers.csv"),
    "sample link": lambda public, host: relink(public / "sample_submission.csv", host / "sample_submission.csv"),
    "data file link": lambda public, host: relink(public / "train.csv", host / "secret.txt"),
}


@pytest.mark.parametrize("case", sorted(SANDMLE_CASES))
def test_sandmle_import_follows_no_link(sources, tmp_path, host, case):
    root = copy_source(sources, tmp_path, "sandmle")
    SANDMLE_CASES[case](root / task_id(sources) / "prepared" / "public", host)
    out = tmp_path / "out"
    assert_refused(lambda: sandmle_layout.import_folder(root / task_id(sources), out), out, "link")


def test_a_hard_link_to_a_host_file_is_refused(sources, tmp_path, host):
    root = copy_source(sources, tmp_path, "mledojo")
    description = root / "loan-default" / "data" / "public" / "description.txt"
    description.unlink()
    os.link(host / "secret.txt", description)
    out = tmp_path / "out"
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc"), out,
                   "other hard links")


def test_a_fifo_among_the_public_files_is_refused_without_waiting(sources, tmp_path):
    root = copy_source(sources, tmp_path, "mledojo")
    os.mkfifo(root / "loan-default" / "data" / "public" / "stream.csv")
    out = tmp_path / "out"
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc"), out,
                   "not a regular file")


def test_size_caps_bound_each_file_and_the_whole_import(sources, tmp_path):
    root = copy_source(sources, tmp_path, "mledojo")
    (root / "loan-default" / "data" / "public" / "big.bin").write_bytes(b"\0" * 300_000)
    out = tmp_path / "out"
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc",
                                                      limits=SourceLimits(max_file_bytes=200_000)), out,
                   "more than the")
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc",
                                                      limits=SourceLimits(max_total_bytes=250_000)), out,
                   "larger than the")


@pytest.mark.parametrize("where,value,field", [
    ("ladder", {"team-1": "abc"}, "ladder['team-1']"),
    ("ladder", {"team-1": float("nan")}, "ladder['team-1']"),
    ("ladder", [1, 2], "ladder"),
    ("leaderboard", "not-a-number", "leaderboard.csv score on row 3"),
])
def test_mlebench_numbers_are_checked_at_import(sources, tmp_path, where, value, field):
    root = copy_source(sources, tmp_path, "mlebench")
    competition = root / "competitions" / task_id(sources)
    if where == "ladder":
        (competition / "sandmle_ladder.json").write_text(json.dumps(value))
    else:
        board = pd.read_csv(competition / "leaderboard.csv")
        board["score"] = board["score"].astype(object)
        board.loc[2, "score"] = value
        board.to_csv(competition / "leaderboard.csv", index=False)
    out = tmp_path / "out"
    assert_refused(lambda: mlebench.import_competition(competition, out), out, field)


def test_mledojo_leaderboard_numbers_are_checked(sources, tmp_path):
    root = copy_source(sources, tmp_path, "mledojo")
    board = root / "loan-default" / "data" / "private" / "private_leaderboard.csv"
    board.write_text("rank,score\n1,0.95\n2,inf\n3,0.90\n4,0.85\n")
    out = tmp_path / "out"
    assert_refused(lambda: mledojo.import_competition(root / "loan-default", out, metric="auc"), out,
                   "expected a finite number")


@pytest.mark.parametrize("fmt", ["mledojo", "sandmle"])
def test_ids_from_folder_names_are_plain_names_too(sources, tmp_path, fmt):
    root = copy_source(sources, tmp_path, fmt)
    if fmt == "mledojo":
        source = root / ".hidden"
        (root / "loan-default").rename(source)
        call = lambda out: mledojo.import_competition(source, out, metric="auc")  # noqa: E731
    else:
        source = root / "two words"
        (root / task_id(sources)).rename(source)
        call = lambda out: sandmle_layout.import_folder(source, out)  # noqa: E731
    out = tmp_path / "out"
    assert_refused(lambda: call(out), out, "not a plain name")
