"""Seeds: real datasets a task is made from — scikit-learn's bundled ones and validated CSV uploads."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sandmle.untrusted.spreadsheet import formula_cells, runs_as_formula

MAX_CSV_BYTES = 20 * 1024 * 1024
MAX_COLUMNS = 1000
# Characters no CSV text holds; tab, newline and carriage return are text.
_CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MIN_ROWS = 20
DEFAULT_METRICS = {"binary": "roc_auc", "multiclass": "accuracy", "regression": "rmse"}


class SeedError(ValueError):
    """An unusable seed; `field` names the input at fault (file, target, task_type, metric)."""

    def __init__(self, message: str, *, field: str = "file"):
        super().__init__(message)
        self.field = field


@dataclass
class Seed:
    name: str
    frame: pd.DataFrame
    target: str
    task_type: str
    metric: str
    modality: str
    source: str


def _sklearn_loaders() -> dict:
    from sklearn import datasets

    return {
        "iris": (datasets.load_iris, "multiclass", "accuracy", "tabular"),
        "wine": (datasets.load_wine, "multiclass", "macro_f1", "tabular"),
        "breast_cancer": (datasets.load_breast_cancer, "binary", "roc_auc", "tabular"),
        "diabetes": (datasets.load_diabetes, "regression", "rmse", "tabular"),
        "digits": (datasets.load_digits, "multiclass", "accuracy", "image"),
    }


def bundled_seed_names() -> list[str]:
    return list(_sklearn_loaders())


def load_bundled_seed(name: str) -> Seed:
    loaders = _sklearn_loaders()
    if name not in loaders:
        raise SeedError(f"unknown bundled seed {name!r}; expected one of {', '.join(loaders)}", field="name")
    loader, task_type, metric, modality = loaders[name]
    bunch = loader(as_frame=True)
    frame = bunch.frame.copy()
    target = "target"
    return Seed(name=name, frame=frame, target=target, task_type=task_type, metric=metric, modality=modality,
                source="bundled")


def is_text_column(column: pd.Series) -> bool:
    """Long values that rarely repeat are prose; short repeating ones are categorical levels."""
    values = column.dropna().astype(str)
    if values.empty or pd.api.types.is_numeric_dtype(column):
        return False
    return values.str.len().mean() > 25 and values.nunique() > 0.5 * len(values)


def infer_task_type(labels: pd.Series) -> str:
    distinct = labels.dropna().nunique()
    if distinct == 2:
        return "binary"
    if pd.api.types.is_numeric_dtype(labels) and (distinct > 20 or not np.allclose(labels.dropna() % 1, 0)):
        return "regression"
    return "multiclass"


def load_csv_seed(source: bytes | str | Path, *, target: str, task_type: str | None = None,
                  metric: str | None = None, name: str = "upload") -> Seed:
    """Parse and validate a CSV seed; every refusal says what was wrong and what was expected.

    The CLI, the seed page and the API all call this, so they refuse the same files with the same words; nothing is
    stored before it returns.
    """
    from sandmle.tasks.metrics import METRICS

    content = Path(source).read_bytes() if isinstance(source, (str, Path)) else bytes(source)
    header, frame = checked_csv(content)
    if target not in header:
        raise SeedError(f"no column {target!r}; the columns are {', '.join(header[:20])}"
                        + (f" and {len(header) - 20} more" if len(header) > 20 else ""), field="target")
    if len(header) < 2:
        raise SeedError("a seed needs at least one feature column besides the target")
    labels = frame[target]
    if labels.isna().all():
        raise SeedError(f"the target column {target!r} is empty", field="target")
    frame = frame[labels.notna()].reset_index(drop=True)
    if len(frame) < MIN_ROWS:
        raise SeedError(f"only {len(frame)} rows with a target; a seed needs at least {MIN_ROWS} rows")
    if frame[target].nunique() < 2:
        raise SeedError(f"the target column {target!r} is constant (one class): nothing to predict", field="target")
    task_type = task_type or infer_task_type(frame[target])
    if task_type not in DEFAULT_METRICS:
        raise SeedError("expected binary, multiclass or regression", field="task_type")
    if task_type == "binary" and frame[target].nunique() != 2:
        raise SeedError(f"a binary target has 2 values; {target!r} has {frame[target].nunique()}", field="task_type")
    if task_type == "regression" and not pd.api.types.is_numeric_dtype(frame[target]):
        raise SeedError(f"a regression target must be numeric; {target!r} is not", field="task_type")
    metric = metric or DEFAULT_METRICS[task_type]
    if metric not in METRICS or task_type not in METRICS[metric].task_types:
        raise SeedError(f"metric {metric!r} does not fit a {task_type} task", field="metric")
    features = frame.drop(columns=[target])
    modality = "text" if any(is_text_column(features[column]) for column in features.columns) else "tabular"
    return Seed(name=name, frame=frame, target=target, task_type=task_type, metric=metric, modality=modality,
                source="upload")


def checked_csv(content: bytes) -> tuple[list[str], pd.DataFrame]:
    """A CSV people will open, checked as a seed upload is: UTF-8 text of at most MAX_CSV_BYTES, at most MAX_COLUMNS
    distinct column names, parseable, and no cell a spreadsheet would run as a formula; its header and frame, else a
    SeedError saying what was wrong. Seed uploads and archive imports (their public files) both call it."""
    text = _decoded_text(content)
    header = _header_names(text)
    try:
        frame = pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise SeedError(f"the CSV could not be parsed: {str(error).splitlines()[0]}") from None
    _refuse_formula_cells(frame)
    return header, frame


def _decoded_text(content: bytes) -> str:
    """The file as UTF-8 text, or a SeedError saying why it is not a CSV text file (size, encoding, binary)."""
    if len(content) > MAX_CSV_BYTES:
        raise SeedError(f"the file is {len(content) / 2**20:.1f} MiB; the limit is {MAX_CSV_BYTES / 2**20:.0f} MiB")
    if not content.strip():
        raise SeedError("the file is empty")
    if content.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SeedError("the file is UTF-16 text: save it as UTF-8 CSV")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = content[:error.start].count(b"\n") + 1
        raise SeedError(f"the file is not UTF-8 text (line {line}, byte {error.start}; Latin-1 or Windows-1252?): "
                        "save it as UTF-8 CSV") from None
    control = _CONTROL_CHARACTERS.search(text)
    if control:
        raise SeedError(f"the file holds binary data (character {ord(control.group()):#04x} on line "
                        f"{text[:control.start()].count(chr(10)) + 1}): it is not a CSV text file")
    return text


def _header_names(text: str) -> list[str]:
    """The header row, read before pandas: a very wide or duplicated header is refused without parsing the rows."""
    first_line = text.split("\n", 1)[0]
    if first_line.count(",") + 1 > MAX_COLUMNS:
        raise SeedError(f"the header has {first_line.count(',') + 1:,} columns; at most {MAX_COLUMNS:,} are accepted")
    try:
        header = next(csv.reader(io.StringIO(text)), [])
    except csv.Error as error:
        raise SeedError(f"the header row could not be read: {error}") from None
    if len(header) > MAX_COLUMNS:  # a quoted header line can hold newlines, so count again
        raise SeedError(f"the header has {len(header):,} columns; at most {MAX_COLUMNS:,} are accepted")
    names = [name.strip() for name in header]
    seen: set[str] = set()
    for position, column in enumerate(names, start=1):
        if column in seen:
            raise SeedError(f"column {position} repeats the name {column!r}: every column needs its own name")
        seen.add(column)
        if runs_as_formula(column):
            raise SeedError(f"column {position}'s name {column!r} starts with {column.lstrip()[:1]!r}: "
                            "a spreadsheet would run it as a formula")
    return header


def _refuse_formula_cells(frame: pd.DataFrame) -> None:
    """Refuse text cells a spreadsheet would run as a formula (OWASP's CSV injection: = + - @, tab, CR).

    Refused rather than neutralised: a seed is the curator's own data, and a quote added to a cell would change the
    DNA (category levels, text lengths) the task is made from. Negative numbers are numbers, not formulas.
    """
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values):
            continue
        text = values.dropna().astype(str)
        suspicious = text[formula_cells(text)]
        if suspicious.empty:
            continue
        live = suspicious[pd.to_numeric(suspicious, errors="coerce").isna()]
        if not live.empty:
            row = int(live.index[0]) + 2  # the header is line 1
            raise SeedError(f"line {row}, column {column!r}: {live.iloc[0][:40]!r} starts with "
                            f"{(live.iloc[0].lstrip() or live.iloc[0])[0]!r}, "
                            "which a spreadsheet would run as a formula; remove the leading character")
