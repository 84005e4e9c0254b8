"""Task-set archives: built in each layout with the id list its framework reads, read back into bundles that grade
alike, and hostile archives (links, absolute and `..` names, bombs, duplicate members, bad ids) refused whole."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from sandmle.archives.build import build_archive
from sandmle.archives.extract import ArchiveRefused, ExtractLimits, extract_archive
from sandmle.archives.load import import_archive
from sandmle.errors import UsageError
from tests.engine.rollout_bundles import make_bundle


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    root = tmp_path_factory.mktemp("archive-bundles")
    return [make_bundle(root, kind="binary", seed=1), make_bundle(root, kind="regression", seed=2)]


def names_in(archive: Path) -> set[str]:
    with tarfile.open(archive) as tar:
        return {member.name for member in tar.getmembers() if member.isfile()}


def grade_of(task_dir: Path) -> dict:
    from sandmle.tasks.grading import grade_submission

    report = grade_submission(task_dir, task_dir / "public" / "sample_submission.csv", split="private")
    return {key: report.to_dict()[key] for key in ("score", "valid_submission", "is_lower_better")}


def test_bundle_archive_round_trips_and_lists_the_set(bundles, tmp_path):
    archive = tmp_path / "set.tar.gz"
    assert build_archive(bundles, archive, fmt="bundle", set_name="my-set", description="two") == \
        ["binary-1", "regression-2"]
    names = names_in(archive)
    assert "my-set/task_set.json" in names and "my-set/binary-1/private/answers.csv" in names
    outcome = import_archive(archive, tmp_path / "out", fmt="bundle")
    assert outcome.refused == [] and [path.name for path in outcome.bundles] == ["binary-1", "regression-2"]
    for original, imported in zip(bundles, outcome.bundles):
        assert grade_of(imported) == grade_of(original)


def test_mlebench_archive_has_the_split_file_and_imports_back(bundles, tmp_path):
    archive = tmp_path / "mle.tar.gz"
    build_archive(bundles, archive, fmt="mlebench", set_name="my-set")
    with tarfile.open(archive) as tar:
        split = tar.extractfile("my-set/experiments/splits/my-set.txt").read().decode()
    assert split == "binary-1\nregression-2\n"
    assert {"my-set/competitions/binary-1/config.yaml", "my-set/data/binary-1/prepared/private/test.csv"} <= \
        names_in(archive)
    outcome = import_archive(archive, tmp_path / "out", fmt="mlebench")
    assert outcome.refused == [] and sorted(path.name for path in outcome.bundles) == ["binary-1", "regression-2"]
    assert grade_of(outcome.bundles[0])["score"] == pytest.approx(grade_of(bundles[0])["score"])


def test_sandmle_archive_has_the_id_list_the_released_code_reads(bundles, tmp_path):
    archive = tmp_path / "sandmle.tar.gz"
    build_archive(bundles, archive, fmt="sandmle", set_name="my-set")
    with tarfile.open(archive) as tar:
        assert json.loads(tar.extractfile("my-set/ok_competitions_sanity.json").read()) == ["binary-1", "regression-2"]
    assert any(name.startswith("my-set/binary-1/") for name in names_in(archive))
    outcome = import_archive(archive, tmp_path / "out", fmt="sandmle")
    assert outcome.refused == [] and sorted(path.name for path in outcome.bundles) == ["binary-1", "regression-2"]
    assert grade_of(outcome.bundles[0])["score"] == pytest.approx(grade_of(bundles[0])["score"])


def test_a_changed_bundle_and_a_bad_id_are_refused_and_the_others_imported(bundles, tmp_path):
    from sandmle.tasks.bundle import bundle_hash, file_hashes

    root = tmp_path / "set"
    for bundle, name in zip(bundles, ("good", "changed")):
        target = root / name
        for folder in ("public", "private"):
            for path in (bundle / folder).iterdir():
                (target / folder).mkdir(parents=True, exist_ok=True)
                (target / folder / path.name).write_bytes(path.read_bytes())
        task = {"task_id": name, "bundle_sha256": bundle_hash(file_hashes(target))}
        (target / "task.json").write_text(json.dumps(task))
    (root / "changed" / "private" / "answers.csv").write_text("id,price\n1,0\n")
    (root / "evil").mkdir()
    (root / "evil" / "task.json").write_text(json.dumps({"task_id": "../../escaped"}))
    archive = tmp_path / "mixed.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(root, arcname="set")
    outcome = import_archive(archive, tmp_path / "out", fmt="bundle")
    assert [path.name for path in outcome.bundles] == ["good"]
    reasons = {entry["task"]: entry["reason"] for entry in outcome.refused}
    assert "do not match task.json's bundle_sha256" in reasons["changed"]
    assert "is not a usable task id" in reasons["evil"]
    assert not (tmp_path / "escaped").exists() and sorted(p.name for p in (tmp_path / "out").iterdir()) == ["good"]


def tar_with(tmp_path: Path, add) -> Path:
    archive = tmp_path / "hostile.tar"
    with tarfile.open(archive, "w") as tar:
        add(tar)
    return archive


def file_member(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, io.BytesIO(data)


def link_member(name: str, target: str, *, hard: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.LNKTYPE if hard else tarfile.SYMTYPE
    info.linkname = target
    return info


@pytest.mark.parametrize("build, words", [
    (lambda tar: tar.addfile(link_member("set/a/public/train.csv", "/etc/passwd")), "a link"),
    (lambda tar: tar.addfile(link_member("set/a/private/answers.csv", "/etc/shadow", hard=True)), "a link"),
    (lambda tar: tar.addfile(*file_member("/tmp/absolute-member")), "an absolute path"),
    (lambda tar: tar.addfile(*file_member("set/../../climbed")), "a '..' in its path"),
    (lambda tar: tar.addfile(*file_member("set\\..\\windows")), "a backslash"),
    (lambda tar: [tar.addfile(*file_member("set/twice")), tar.addfile(*file_member("set/twice"))], "appears twice"),
    (lambda tar: [tar.addfile(*file_member("set/x")), tar.addfile(*file_member("set/x/y"))], "also a file"),
    (lambda tar: tar.addfile(_fifo("set/fifo")), "a special file"),
])
def test_hostile_tar_members_refuse_the_whole_archive(tmp_path, build, words):
    archive = tar_with(tmp_path, build)
    with pytest.raises(ArchiveRefused) as refused:
        extract_archive(archive, tmp_path / "out")
    assert words in str(refused.value)
    assert not (tmp_path / "out").exists() and not (tmp_path / "climbed").exists()
    assert not Path("/tmp/absolute-member").exists()


def _fifo(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.FIFOTYPE
    return info


def test_a_symlink_in_a_zip_is_refused(tmp_path):
    archive = tmp_path / "hostile.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        info = zipfile.ZipInfo("set/a/public/train.csv")
        info.external_attr = (0o120777 << 16)  # S_IFLNK
        bundle.writestr(info, "/etc/passwd")
    with pytest.raises(ArchiveRefused, match="a link"):
        extract_archive(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_zip_climbing_out_is_refused(tmp_path):
    archive = tmp_path / "climb.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("../../outside.txt", "x")
    with pytest.raises(ArchiveRefused, match=r"a '\.\.' in its path"):
        extract_archive(archive, tmp_path / "out")


def test_bombs_stop_at_the_caps_counted_on_bytes_written(tmp_path):
    archive = tmp_path / "bomb.tar.gz"
    zeros = b"\0" * (4 << 20)
    with tarfile.open(archive, "w:gz") as tar:
        tar.addfile(*file_member("set/zeros.csv", zeros))
    assert archive.stat().st_size < 64 << 10  # compresses a thousandfold
    with pytest.raises(ArchiveRefused, match="larger than 1048576 bytes"):
        extract_archive(archive, tmp_path / "a", limits=ExtractLimits(max_file_bytes=1 << 20))
    with pytest.raises(ArchiveRefused, match="unpacks to more than"):
        extract_archive(archive, tmp_path / "b", limits=ExtractLimits(max_total_bytes=2 << 20))
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as bundle:
        for index in range(30):
            bundle.writestr(f"set/f{index}", "x")
    with pytest.raises(ArchiveRefused, match="more than 20 members"):
        extract_archive(many, tmp_path / "c", limits=ExtractLimits(max_members=20))
    assert not any((tmp_path / name).exists() for name in "abc")


def test_not_an_archive_and_an_empty_one_are_one_line_errors(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"this is not an archive")
    with pytest.raises(ArchiveRefused, match="not a .tar, .tar.gz or .zip archive"):
        import_archive(junk, tmp_path / "out", fmt="bundle")
    empty = tar_with(tmp_path, lambda tar: tar.addfile(*file_member("set/readme.txt")))
    with pytest.raises(UsageError, match="holds no task in the bundle layout"):
        import_archive(empty, tmp_path / "out2", fmt="bundle")
