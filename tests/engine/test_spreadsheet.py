"""The one formula-cell test (sandmle.untrusted.spreadsheet), and the CSVs it guards (issue 65): a leading-space formula cell
such as " =1+1" passed the report export's guard and a seed upload's check; now both look past leading whitespace."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from sandmle.seeds.load import SeedError, load_csv_seed
from sandmle.untrusted.spreadsheet import formula_cells, runs_as_formula, spreadsheet_safe

LIVE = ["=1+1", " =1+1", "   @SUM(A1)", "\t=1", "\r+2", " \t-cmd|' /C calc'!A0", "\u00a0=1+1", "+", "\t"]
PLAIN = ["1+1", "call at 10 - fine", "a = b", "", "   ", "x=1", "'=1+1"]


@pytest.mark.parametrize("text", LIVE)
def test_a_cell_a_spreadsheet_would_run_is_found_after_leading_whitespace(text):
    assert runs_as_formula(text)
    assert spreadsheet_safe(text) == "'" + text
    assert formula_cells(pd.Series([text])).tolist() == [True]


@pytest.mark.parametrize("text", PLAIN)
def test_ordinary_text_is_left_as_it_is(text):
    assert not runs_as_formula(text)
    assert spreadsheet_safe(text) == text
    assert formula_cells(pd.Series([text])).tolist() == [False]


def test_the_report_export_quotes_a_leading_space_formula():
    from sandmle.evaluation.transfer import report_csv, transfer_report

    episodes = [{"key": f"{policy}|react|t|{seed}", "policy": policy, "scaffold": "react", "task_id": "t",
                 "seed": seed, "report": {"valid_submission": True}, "trajectory": {}}
                for policy in (" =1+1", "baseline") for seed in (0, 1)]
    rows = list(csv.reader(io.StringIO(report_csv(transfer_report(episodes)))))
    assert {row[0] for row in rows[1:]} == {"' =1+1", "baseline"}
    assert not any(runs_as_formula(value) for row in rows for value in row if not value.startswith("'"))


def test_a_seed_upload_refuses_a_leading_space_formula_and_keeps_signed_numbers():
    rows = ["a,note,label"] + [f"{i - 15},{'ok' if i else ' =1+1'},{i % 2}" for i in range(30)]
    with pytest.raises(SeedError, match="starts with '='"):
        load_csv_seed(("\n".join(rows) + "\n").encode(), target="label")
    signed = ["a,b,label"] + [f" {-i - 0.5}, +{i},{i % 2}" for i in range(30)]
    seed = load_csv_seed(("\n".join(signed) + "\n").encode(), target="label")
    assert seed.frame["a"].min() < 0
    with pytest.raises(SeedError, match="name"):
        load_csv_seed(("a, =b,label\n" + "\n".join(f"{i},{i},{i % 2}" for i in range(30)) + "\n").encode(),
                      target="label")
