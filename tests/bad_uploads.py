"""The catalogue of bad seed uploads (issue 11's list): each file, the field it is refused on, and words the refusal holds.

Shared by the engine, page and API tests and by bench/faults_input.py, so every path is tried with the same files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sandmle.seeds.load import MAX_COLUMNS, MAX_CSV_BYTES


@dataclass(frozen=True)
class BadUpload:
    name: str
    content: bytes
    target: str
    field: str  # the form / API field the refusal is reported on
    words: str  # lower-case words the message must hold


def good_csv(rows: int = 60) -> bytes:
    """A valid binary seed: two features and a label."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=rows).round(4), "b": rng.integers(0, 5, size=rows)})
    frame["label"] = (frame["a"] > 0).astype(int)
    return frame.to_csv(index=False).encode()


def _rows(header: str, row: str, count: int = 40) -> bytes:
    return (header + "\n" + "".join(row.format(i=i, parity=i % 2) + "\n" for i in range(count))).encode()


def _wide(columns: int) -> bytes:
    header = ",".join(f"c{i}" for i in range(columns)) + ",label"
    row = ",".join("1" for _ in range(columns))
    return ("\n".join([header] + [f"{row},{i % 2}" for i in range(25)]) + "\n").encode()


def bad_uploads() -> list[BadUpload]:
    latin1 = "city,label\n" + "".join(f"{'Málaga' if i == 7 else 'Oslo'},{i % 2}\n" for i in range(40))
    return [
        BadUpload("empty", b"", "label", "file", "empty"),
        BadUpload("blank", b"  \n\n ", "label", "file", "empty"),
        BadUpload("over_size_limit", b"a,label\n" + b"1,0\n" * (MAX_CSV_BYTES // 4 + 10), "label", "file", "limit"),
        BadUpload("binary_png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "label", "file", "utf-8"),
        BadUpload("binary_controls", _rows("a,label", "{i}\x01\x02,{parity}"), "label", "file", "binary"),
        BadUpload("nul_bytes", b"a,label\n1,0\x00\n" * 30, "label", "file", "binary"),
        BadUpload("utf16", latin1.encode("utf-16"), "label", "file", "utf-16"),
        BadUpload("latin1", latin1.encode("latin-1"), "label", "file", "utf-8"),
        BadUpload("one_column", _rows("label", "{parity}"), "label", "file", "feature column"),
        BadUpload("wide_100000_columns", _wide(100_000), "label", "file", f"at most {MAX_COLUMNS:,}"),
        BadUpload("one_class_target", _rows("a,label", "{i},1"), "label", "target", "one class"),
        BadUpload("duplicate_columns", _rows("a,b,a,label", "{i},2,3,{parity}"), "label", "file", "repeats the name"),
        BadUpload("target_not_a_column", good_csv(), "price", "target", "no column 'price'"),
        BadUpload("formula_equals", _rows("a,note,label", "{i},ok,{parity}")
                  + b'5,"=HYPERLINK(""http://x"",""y"")",1\n', "label", "file", "formula"),
        BadUpload("formula_plus", _rows("a,note,label", "{i},fine,{parity}") + b"5,+cmd|' /C calc'!A0,1\n", "label",
                  "file", "formula"),
        BadUpload("formula_minus", _rows("a,note,label", "{i},fine,{parity}") + b"5,-2+3+cmd|' /C calc'!A0,1\n",
                  "label", "file", "formula"),
        BadUpload("formula_at", _rows("a,note,label", "{i},fine,{parity}") + b"5,@SUM(1+1)*cmd,1\n", "label", "file",
                  "formula"),
        BadUpload("formula_header", _rows("a,=cmd(),label", "{i},2,{parity}"), "label", "file", "formula"),
        BadUpload("too_few_rows", _rows("a,label", "{i},{parity}", count=5), "label", "file", "rows"),
        BadUpload("unparseable", b'a,label\n1,"2\n' + b"3,4\n" * 30, "label", "file", "parsed"),
    ]
