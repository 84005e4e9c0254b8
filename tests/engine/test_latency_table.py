"""The latency study's table split: streamed by a capped child, an exact fifth to test, rows without a target dropped,
a uniform DNA sample, bad tables refused in one line."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from sandmle.errors import UsageError
from sandmle.latency.table import split_rows_bounded


def _write(path, frame):
    frame.to_csv(path, index=False)
    return path


def test_split_is_exact_drops_missing_targets_and_samples_every_row_alike(tmp_path):
    rng = np.random.default_rng(0)
    n = 5000
    frame = pd.DataFrame({"x": rng.normal(size=n).round(4), "note": ["a, \"quoted\"\nline"] * n,
                          "y": rng.choice(["yes", "no"], n).astype(object)})
    frame.loc[::10, "y"] = None  # 500 rows without a target
    table = _write(tmp_path / "t.csv", frame)
    split = split_rows_bounded(table, target="y", out_dir=tmp_path / "out", rows=None, sample_rows=300)
    train = pd.read_csv(tmp_path / "out" / "public" / "train.csv")
    test = pd.read_csv(tmp_path / "out" / "public" / "test.csv")
    assert split["test_rows"] == len(test) == 900 and split["train_rows"] == len(train) == 3600
    assert list(train.columns) == ["id", "x", "note", "y"] and list(test.columns) == ["id", "x", "note"]
    assert train["y"].notna().all() and set(train["id"]).isdisjoint(test["id"])
    assert (train["note"] == "a, \"quoted\"\nline").all()
    sample = pd.read_csv(io.StringIO(split["sample"]))
    assert len(sample) == 300 and list(sample.columns) == ["x", "note", "y"] and sample["y"].notna().all()
    # Uniform over the table: the sample's mean of x sits near the table's, not near its first rows'.
    assert abs(sample["x"].mean() - frame["x"].mean()) < 0.2
    capped = split_rows_bounded(table, target="y", out_dir=tmp_path / "capped", rows=1000, sample_rows=10)
    assert capped["train_rows"] == 1000 and capped["test_rows"] == 900


@pytest.mark.parametrize("content, words", [
    (b"a,b\n1,2\n3\n", "row 3 has 1 fields"),
    (b"a,b\n" + b"1,\"" + b"x" * (17 << 20) + b"\"\n", "could not be read"),
    (b"a,b\n1,2\n", "--target: 'y' is not a column"),
    (b"", "the table is empty"),
    (b"a,y\n1,\n2,NA\n", "too few to split"),
])
def test_bad_tables_are_refused_in_one_line(tmp_path, content, words):
    table = tmp_path / "bad.csv"
    table.write_bytes(content)
    with pytest.raises(UsageError) as refused:
        split_rows_bounded(table, target="y" if words != "row 3 has 1 fields" and "could not" not in words else "b",
                           out_dir=tmp_path / "out", rows=None, sample_rows=10)
    assert words in str(refused.value) and "\n" not in str(refused.value)
