"""TaskDNA: the structural statistics of a seed — the only thing that crosses from a seed to its tasks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from sandmle.tasks.metrics import get_metric

SCHEMA_VERSION = 1
QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


@dataclass
class FeatureDNA:
    kind: str  # numeric, categorical, text, pixel
    missing_rate: float = 0.0
    skewness: float = 0.0
    kurtosis: float = 0.0
    heavy_tailed: bool = False
    n_modes: int = 1
    bounded: bool = False
    integer: bool = False
    quantiles: list[float] = field(default_factory=list)
    n_categories: int = 0
    category_shares: list[float] = field(default_factory=list)
    mean_length: float = 0.0  # text: words per value


@dataclass
class TaskDNA:
    modality: str
    task_type: str
    n_rows: int
    n_features: int
    n_classes: int
    class_balance: list[float]
    features: list[FeatureDNA]
    missing_rate: float
    correlation_strength: float
    metric: str
    is_lower_better: bool
    image_shape: list[int] = field(default_factory=list)
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        data = asdict(self)
        data["feature_kinds"] = {kind: sum(f.kind == kind for f in self.features)
                                 for kind in ("numeric", "categorical", "text", "pixel")}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "TaskDNA":
        data = {key: value for key, value in data.items() if key != "feature_kinds"}
        data["features"] = [FeatureDNA(**feature) for feature in data["features"]]
        return cls(**data)


def _count_modes(values: np.ndarray) -> int:
    if len(values) < 10 or np.ptp(values) == 0:
        return 1
    density = stats.gaussian_kde(values)(np.linspace(values.min(), values.max(), 128))
    peaks = (density[1:-1] > density[:-2]) & (density[1:-1] > density[2:]) & (density[1:-1] > 0.1 * density.max())
    return max(1, int(peaks.sum()))


def _numeric_dna(column: pd.Series) -> FeatureDNA:
    values = column.dropna().to_numpy(dtype=float)
    values = values[np.isfinite(values)]  # inf would make every statistic (and the stored JSON) non-finite
    kurtosis = float(stats.kurtosis(values)) if len(values) > 3 and np.std(values) > 0 else 0.0
    return FeatureDNA(
        kind="numeric", missing_rate=float(column.isna().mean()),
        skewness=float(stats.skew(values)) if len(values) > 2 and np.std(values) > 0 else 0.0,
        kurtosis=kurtosis, heavy_tailed=kurtosis > 3.0, n_modes=_count_modes(values),
        bounded=bool(len(values) == 0 or values.min() >= 0), integer=bool(np.allclose(values, np.round(values))),
        quantiles=[float(q) for q in np.quantile(values, QUANTILES)] if len(values) else [],
    )


def _categorical_dna(column: pd.Series) -> FeatureDNA:
    shares = column.value_counts(normalize=True, dropna=True).to_numpy()
    return FeatureDNA(kind="categorical", missing_rate=float(column.isna().mean()), n_categories=int(len(shares)),
                      category_shares=[float(share) for share in shares[:50]])


def _text_dna(column: pd.Series) -> FeatureDNA:
    words = column.dropna().astype(str).str.split().str.len()
    return FeatureDNA(kind="text", missing_rate=float(column.isna().mean()), mean_length=float(words.mean() or 0.0))


def extract_dna(seed) -> TaskDNA:
    """Statistics of the seed's shape: modality, task type, classes, per-feature distributions, missingness."""
    from sandmle.seeds.load import is_text_column

    frame = seed.frame
    features = frame.drop(columns=[seed.target])
    labels = frame[seed.target]
    feature_dna = []
    for name in features.columns:
        column = features[name]
        if seed.modality == "image":
            feature_dna.append(FeatureDNA(kind="pixel", missing_rate=0.0, bounded=True, integer=True,
                                          quantiles=[float(q) for q in np.quantile(column, QUANTILES)]))
        elif is_text_column(column):
            feature_dna.append(_text_dna(column))
        elif pd.api.types.is_numeric_dtype(column) and column.nunique() > 10:
            feature_dna.append(_numeric_dna(column))
        else:
            feature_dna.append(_categorical_dna(column.astype("string")) if not pd.api.types.is_numeric_dtype(column)
                               else _categorical_dna(column))
    # inf is no value for a correlation; a constant or all-missing column has none: such pairs are skipped, and a
    # seed with no defined pair gets 0.0 (a NaN here would make the DNA invalid JSON).
    numeric = features.select_dtypes("number").replace([np.inf, -np.inf], np.nan)
    correlation = 0.0
    if numeric.shape[1] > 1:
        matrix = numeric.corr().abs().to_numpy()
        pairs = matrix[np.triu_indices_from(matrix, k=1)]
        pairs = pairs[np.isfinite(pairs)]
        correlation = float(pairs.mean()) if pairs.size else 0.0
    classification = seed.task_type != "regression"
    balance = labels.value_counts(normalize=True).sort_index().tolist() if classification else []
    side = int(round(np.sqrt(features.shape[1])))
    return TaskDNA(
        modality=seed.modality, task_type=seed.task_type, n_rows=int(len(frame)), n_features=int(features.shape[1]),
        n_classes=int(labels.nunique()) if classification else 0, class_balance=[float(b) for b in balance],
        features=feature_dna, missing_rate=float(features.isna().mean().mean()),
        correlation_strength=correlation, metric=seed.metric, is_lower_better=get_metric(seed.metric).is_lower_better,
        image_shape=[side, side] if seed.modality == "image" else [],
    )
