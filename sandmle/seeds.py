"""Seeds: real datasets a task is made from — scikit-learn's bundled ones and validated CSV uploads."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

MAX_CSV_BYTES = 20 * 1024 * 1024
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
    """Parse and validate a CSV seed; every refusal says what was wrong and what was expected."""
    from sandmle.metrics import METRICS

    content = Path(source).read_bytes() if isinstance(source, (str, Path)) else bytes(source)
    if len(content) > MAX_CSV_BYTES:
        raise SeedError(f"the file is {len(content) / 1e6:.1f} MB; the limit is {MAX_CSV_BYTES / 1e6:.0f} MB")
    if not content.strip():
        raise SeedError("the file is empty")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SeedError(f"the file is not UTF-8 text (byte {error.start}): save it as UTF-8 CSV") from None
    if "\x00" in text:
        raise SeedError("the file holds NUL bytes: it is not a CSV text file")
    try:
        frame = pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise SeedError(f"the CSV could not be parsed: {str(error).splitlines()[0]}") from None
    if target not in frame.columns:
        raise SeedError(f"no column {target!r}; the columns are {', '.join(map(str, frame.columns[:20]))}", field="target")
    if frame.shape[1] < 2:
        raise SeedError("a seed needs at least one feature column besides the target")
    labels = frame[target]
    if labels.isna().all():
        raise SeedError(f"the target column {target!r} is empty", field="target")
    frame = frame[labels.notna()].reset_index(drop=True)
    if len(frame) < MIN_ROWS:
        raise SeedError(f"only {len(frame)} rows with a target; a seed needs at least {MIN_ROWS} rows")
    if frame[target].nunique() < 2:
        raise SeedError(f"the target column {target!r} is constant: nothing to predict", field="target")
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
