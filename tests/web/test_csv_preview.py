"""A public CSV's preview (issue 57): first rows, every row counted, column types inferred over every row, no links."""

from __future__ import annotations

import os

from tasks_app.tasks.csv_preview import csv_preview


def _bundle(tmp_path, text: str) -> str:
    (tmp_path / "public").mkdir()
    (tmp_path / "public" / "train.csv").write_text(text)
    return str(tmp_path)


def test_types_come_from_every_row_and_missing_values_say_nothing(tmp_path):
    rows = ["id,count,size,kind,blank"] + [f"r{i},{i},{i}.5,a," for i in range(20)] + ["r20,NA,7,b,", "r21,3,x,c,"]
    preview = csv_preview(_bundle(tmp_path, "\n".join(rows) + "\n"), "train.csv", preview_rows=5)
    assert preview.total_rows == 22 and len(preview.rows) == 5 and preview.rows[0] == ["r0", "0", "0.5", "a", ""]
    assert preview.columns == [("id", "text"), ("count", "integer"), ("size", "text"), ("kind", "text"),
                               ("blank", "empty")]


def test_a_link_or_a_missing_file_has_no_preview(tmp_path):
    bundle = _bundle(tmp_path, "a\n1\n")
    os.symlink(tmp_path / "public" / "train.csv", tmp_path / "public" / "test.csv")
    assert csv_preview(bundle, "test.csv") is None and csv_preview(bundle, "sample_submission.csv") is None


def test_a_ragged_row_is_cut_or_padded_to_the_header(tmp_path):
    preview = csv_preview(_bundle(tmp_path, "a,b\n1\n1,2,3\n"), "train.csv")
    assert preview.rows == [["1", ""], ["1", "2"]] and preview.total_rows == 2
