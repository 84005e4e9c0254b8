"""A text preview of a task's public files for the prompts (AIDE's and aira-dojo's "Data Overview").

It reads the bundle's own public files on the host (never the agent's working directory): the file tree with line
counts, then each CSV's shape and per-column facts; a shorter column list when the detailed one is too long.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pandas.api.types import is_numeric_dtype

PREVIEW_CHARS = 6000
TEXT_SUFFIXES = {".txt", ".csv", ".json", ".tsv", ".md"}


def _size(path: Path) -> str:
    if path.suffix in TEXT_SUFFIXES:
        with path.open("rb") as handle:
            return f"{sum(1 for _ in handle)} lines"
    return f"{path.stat().st_size} bytes"


def file_tree(root: Path, depth: int = 0) -> list[str]:
    files = sorted(p for p in root.iterdir() if p.is_file() and not p.is_symlink())
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    shown = 4 if len(files) > 30 else 8
    lines = [f"{'    ' * depth}{p.name} ({_size(p)})" for p in files[:shown]]
    if len(files) > shown:
        lines.append(f"{'    ' * depth}... and {len(files) - shown} other files")
    for folder in dirs:
        lines.append(f"{'    ' * depth}{folder.name}/")
        lines += file_tree(folder, depth + 1)
    return lines


def preview_csv(path: Path, name: str, *, simple: bool) -> str:
    frame = pd.read_csv(path, low_memory=False)
    lines = [f"-> {name} has {frame.shape[0]} rows and {frame.shape[1]} columns."]
    if simple:
        columns = [str(c) for c in frame.columns]
        more = f"... and {len(columns) - 15} more columns" if len(columns) > 15 else ""
        return "\n".join(lines + ["The columns are: " + ", ".join(columns[:15]) + more])
    lines.append("Per column:")
    for column in frame.columns:
        values = frame[column]
        label = f"{column} ({values.dtype})"
        missing = int(values.isnull().sum())
        unique = values.nunique()
        if unique < 10:
            lines.append(f"{label} has {unique} unique values: {values.dropna().unique().tolist()}")
        elif is_numeric_dtype(values):
            lines.append(f"{label} has range {values.min():.4g} to {values.max():.4g}, {missing} missing values")
        else:
            examples = values.value_counts().head(4).index.tolist()
            lines.append(f"{label} has {unique} unique values, for example {examples}, {missing} missing values")
    return "\n".join(lines)


def data_preview(public: Path, *, simple: bool = False) -> str:
    public = Path(public)
    parts = ["```\n" + "\n".join(file_tree(public)) + "\n```"]
    for path in sorted(public.rglob("*.csv")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            parts.append(preview_csv(path, path.relative_to(public).as_posix(), simple=simple))
        except (ValueError, OSError, pd.errors.ParserError) as error:
            parts.append(f"-> {path.relative_to(public).as_posix()} could not be read: {error}")
    text = "\n\n".join(parts)
    if len(text) > PREVIEW_CHARS and not simple:
        return data_preview(public, simple=True)
    return text[:PREVIEW_CHARS * 2]
