"""The latency study of a user's real large table: the table is the full-scale task, a task synthesized from its DNA
the small one; the same pipelines time both. A table that cannot serve is refused with exit 2 and one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sandmle.cli import main
from sandmle.errors import UsageError
from sandmle.latency.study import latency_study_csv, pipeline_subset


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """3,000 rows of a credit-like table: numbers, a categorical column, free text and a binary target."""
    rng = np.random.default_rng(5)
    n = 3000
    income = rng.normal(50, 12, n).round(2)
    debt = rng.normal(20, 6, n).round(2)
    frame = pd.DataFrame({"income": income, "debt": debt, "region": rng.choice(["north", "south", "east"], n),
                          "note": [f"applicant {i} wrote a free text note" for i in range(n)],
                          "defaulted": np.where(debt * 2 + rng.normal(0, 5, n) > income * 0.8, "yes", "no")})
    path = tmp_path_factory.mktemp("table") / "Credit Table.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_real_table_is_timed_against_its_synthesized_twin(table):
    seen = []
    study = latency_study_csv(table, target="defaulted", seeds=1, pipelines=pipeline_subset(["linear"]),
                              progress=lambda done, total, message: seen.append((done, total)))
    assert study["source"] == "csv" and study["table"] == "Credit Table.csv" and study["target"] == "defaulted"
    assert study["full_rows"] == 2400 and 50 <= study["synth_rows"] <= 200  # 80% of the table trains
    run = study["runs"][0]
    assert set(run["full"]) == set(run["synth"]) == {"linear"} and study["complete"] is True
    assert study["speedup"] == pytest.approx(study["median_full_s"] / study["median_synth_s"])
    assert seen == [(1, 2), (2, 2)]


def test_rows_cap_the_training_rows_and_a_stop_keeps_finished_seeds(table):
    calls = iter([False, False, True])
    study = latency_study_csv(table, target="defaulted", rows=1000, seeds=2, pipelines=pipeline_subset(["linear"]),
                              should_stop=lambda: next(calls))
    assert study["full_rows"] == 1000 and len(study["runs"]) == 1 and study["complete"] is False


def _cli(capsys, *args) -> tuple[int, list[str]]:
    code = main(["latency", *map(str, args)])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("content, target, words", [
    (b"a,b,label\n" + b"1,2,x\n" * 30, "nope", "--target: no column 'nope'"),
    ("a,b,label\n".encode() + "1,2,caf\u00e9\n".encode("latin-1") * 30, "label", "--csv: the file is not UTF-8"),
    (b"a,b,label\n" + b"".join(b"%d,2,%s\n" % (i, b"xy"[i % 2:i % 2 + 1]) for i in range(60)), "label",
     "the full-scale side needs more than"),
    (b"a,b,label\n1,2\n" + b"1,2,x,9,9\n" * 30, "label", "--csv: the CSV could not be parsed"),
])
def test_a_table_that_cannot_serve_exits_2_with_one_line(tmp_path, capsys, content, target, words):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    code, lines = _cli(capsys, "--csv", path, "--target", target, "--seeds", 1, "--pipelines", "linear")
    assert code == 2 and len(lines) == 1 and words in lines[0], lines


def test_arguments_that_do_not_fit_exit_2(tmp_path, capsys, table):
    assert _cli(capsys, "--csv", table) == (2, ["sandmle latency: --csv needs --target COL"])
    assert _cli(capsys, tmp_path, "--csv", table, "--target", "defaulted")[1] == \
        ["sandmle latency: give TASK_DIR or --csv, not both"]
    code, lines = _cli(capsys, "--csv", table, "--target", "defaulted", "--pipelines", "xgboost")
    assert code == 2 and "pipelines: expected some of" in lines[0]
    assert _cli(capsys, "--csv", tmp_path / "missing.csv", "--target", "x")[1][0].startswith(
        "sandmle latency: --csv: no file")
    with pytest.raises(UsageError, match="^seeds: "):
        latency_study_csv(table, target="defaulted", seeds=0)


def test_the_cli_prints_the_study_as_json(table, capsys):
    assert main(["latency", "--csv", str(table), "--target", "defaulted", "--rows", "500", "--seeds", "1",
                 "--pipelines", "linear"]) == 0
    study = json.loads(capsys.readouterr().out)
    assert study["full_rows"] == 500 and study["runs"][0]["ratio"] > 0
