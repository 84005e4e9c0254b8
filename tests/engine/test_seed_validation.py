"""Bad seed CSVs (issue 11's list) are refused by the engine with the field named, and by `sandmle dna --csv` in one line."""

from __future__ import annotations

import pytest

from sandmle.cli import main
from sandmle.seeds.load import MAX_COLUMNS, SeedError, load_csv_seed
from tests.bad_uploads import bad_uploads, good_csv

CASES = bad_uploads()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_engine_refuses_with_the_field_and_a_reason(case):
    with pytest.raises(SeedError) as error:
        load_csv_seed(case.content, target=case.target)
    assert error.value.field == case.field
    assert case.words in str(error.value).lower(), str(error.value)
    assert "\n" not in str(error.value) and len(str(error.value)) < 300


@pytest.mark.parametrize("case", [c for c in CASES if c.name != "over_size_limit"], ids=lambda c: c.name)
def test_cli_exits_2_with_one_line(case, tmp_path, capsys):
    path = tmp_path / "seed.csv"
    path.write_bytes(case.content)
    assert main(["dna", "--csv", str(path), "--target", case.target]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sandmle dna: ") and case.words in lines[0].lower()


def test_cli_refuses_a_file_over_the_limit_in_one_line(tmp_path, capsys):
    (over,) = [c for c in CASES if c.name == "over_size_limit"]
    path = tmp_path / "big.csv"
    path.write_bytes(over.content)
    assert main(["dna", "--csv", str(path), "--target", "label"]) == 2
    assert "limit is 20 MiB" in capsys.readouterr().err


def test_numbers_with_a_sign_and_ordinary_text_are_not_formulas():
    rows = ["a,b,note,label"] + [f"{-i - 0.5},+{i},call at 10 - fine,{i % 2}" for i in range(30)]
    seed = load_csv_seed(("\n".join(rows) + "\n").encode(), target="label")
    assert seed.frame["a"].min() < 0 and seed.frame["b"].max() == 29


def test_a_wide_seed_at_the_limit_is_accepted():
    header = ",".join(f"c{i}" for i in range(MAX_COLUMNS - 1)) + ",label"
    rows = [",".join(str((i * j) % 7) for j in range(MAX_COLUMNS - 1)) + f",{i % 2}" for i in range(25)]
    seed = load_csv_seed(("\n".join([header] + rows) + "\n").encode(), target="label")
    assert seed.frame.shape == (25, MAX_COLUMNS)


def test_a_latin1_refusal_names_the_line():
    (latin1,) = [c for c in CASES if c.name == "latin1"]
    with pytest.raises(SeedError, match="line 9"):
        load_csv_seed(latin1.content, target="label")


def test_a_good_seed_still_loads():
    seed = load_csv_seed(good_csv(), target="label")
    assert (seed.task_type, seed.metric, seed.source) == ("binary", "roc_auc", "upload")


def test_the_campaign_report_csv_never_emits_a_live_formula():
    import csv
    import io

    from sandmle.evaluation.transfer import report_csv, transfer_report

    episodes = [{"key": f"{policy}|react|t|{seed}", "policy": policy, "scaffold": "react", "task_id": "t",
                 "seed": seed, "report": {"valid_submission": True}, "trajectory": {}}
                for policy in ("=HYPERLINK(\"http://x\")", "@SUM(A1)", "baseline") for seed in (0, 1)]
    rows = list(csv.reader(io.StringIO(report_csv(transfer_report(episodes)))))
    cells = [value for row in rows for value in row if isinstance(value, str)]
    assert not any(value.startswith(("=", "+", "@")) for value in cells)
    assert {row[0] for row in rows[1:]} >= {"'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "baseline"}
