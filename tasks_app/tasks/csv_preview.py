"""A public CSV as the task page shows it: the first rows as a table, each column's inferred type, the row count."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field

from sandmle.sandbox.host_files import EpisodeDir, RefusedFile
from tasks_app.tasks.bundle_files import MAX_TEXT_BYTES

PREVIEW_ROWS = 15
PUBLIC_CSVS = ("train.csv", "test.csv", "sample_submission.csv")
MISSING = {"", "na", "nan", "null", "none"}


@dataclass
class CsvPreview:
    name: str
    header: list[str] = field(default_factory=list)
    column_types: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    total_rows: int = 0

    @property
    def columns(self) -> list[tuple[str, str]]:
        return list(zip(self.header, self.column_types))


def _value_kind(value: str) -> str | None:
    """integer, number or text for one cell; None for a missing one (it says nothing about the column's type)."""
    if value.strip().lower() in MISSING:
        return None
    try:
        int(value)
        return "integer"
    except ValueError:
        pass
    try:
        float(value)
        return "number"
    except ValueError:
        return "text"


def _column_type(kinds: set[str]) -> str:
    if not kinds:
        return "empty"
    if "text" in kinds:
        return "text"
    return "number" if "number" in kinds else "integer"


def csv_preview(bundle_dir: str, name: str, *, preview_rows: int = PREVIEW_ROWS) -> CsvPreview | None:
    """Reads public/<name> once, without following links: every row is counted and typed, the first kept.
    None when the file is missing or refused."""
    if not bundle_dir:
        return None
    try:
        fd = EpisodeDir(bundle_dir, hard_links_ok=True).open_regular(f"public/{name}", max_bytes=MAX_TEXT_BYTES)
    except (RefusedFile, OSError):
        return None
    preview = CsvPreview(name=name)
    with io.TextIOWrapper(os.fdopen(fd, "rb"), encoding="utf-8", errors="replace", newline="") as handle:
        reader = csv.reader(handle)
        preview.header = next(reader, [])
        kinds: list[set[str]] = [set() for _ in preview.header]
        for row in reader:
            if not row:
                continue
            preview.total_rows += 1
            if len(preview.rows) < preview_rows:  # cut or padded to the header's width: the table stays rectangular
                preview.rows.append(row[:len(kinds)] + [""] * (len(kinds) - len(row)))
            for index, value in enumerate(row[:len(kinds)]):
                kind = _value_kind(value)
                if kind is not None:
                    kinds[index].add(kind)
    preview.column_types = [_column_type(column_kinds) for column_kinds in kinds]
    return preview


def public_csv_previews(bundle_dir: str) -> list[CsvPreview]:
    return [preview for name in PUBLIC_CSVS if (preview := csv_preview(bundle_dir, name)) is not None]
