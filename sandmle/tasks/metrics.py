"""The metric registry: each task's grading.json names one of these, and calibration and grading both score with it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn import metrics as skm


@dataclass(frozen=True)
class Metric:
    """A scoring function with what it expects as predictions.

    prediction: "label" (one class per row), "probability" (one column per class, rows sum to 1;
    a binary task may give one column, the positive class) or "value" (a real number).
    """

    name: str
    function: Callable[..., float]
    is_lower_better: bool
    prediction: str
    task_types: tuple[str, ...]
    score_range: tuple[float, float] = (-math.inf, math.inf)  # every score the metric can give lies in here


def _roc_auc(y_true, y_score, labels=None) -> float:
    y_score = np.asarray(y_score, dtype=float)
    if y_score.ndim == 2 and y_score.shape[1] == 2:
        y_score = y_score[:, 1]
    if y_score.ndim == 1:
        return float(skm.roc_auc_score(y_true, y_score))
    return float(skm.roc_auc_score(y_true, y_score, multi_class="ovr", labels=labels))


def _log_loss(y_true, y_proba, labels=None) -> float:
    y_proba = np.asarray(y_proba, dtype=float)
    if y_proba.ndim == 1:
        y_proba = np.column_stack([1.0 - y_proba, y_proba])
    return float(skm.log_loss(y_true, y_proba, labels=labels))


def _rmse(y_true, y_pred, labels=None) -> float:
    return float(np.sqrt(skm.mean_squared_error(y_true, y_pred)))


METRICS: dict[str, Metric] = {}


def register(metric: Metric) -> Metric:
    METRICS[metric.name] = metric
    return metric


register(Metric("accuracy", lambda y, p, labels=None: float(skm.accuracy_score(y, p)), False, "label", ("binary", "multiclass"),
                (0.0, 1.0)))
register(Metric("macro_f1", lambda y, p, labels=None: float(skm.f1_score(y, p, average="macro", labels=labels)), False, "label", ("binary", "multiclass"),
                (0.0, 1.0)))
register(Metric("roc_auc", _roc_auc, False, "probability", ("binary", "multiclass"),
                (0.0, 1.0)))
register(Metric("log_loss", _log_loss, True, "probability", ("binary", "multiclass"),
                (0.0, math.inf)))
register(Metric("rmse", _rmse, True, "value", ("regression",),
                (0.0, math.inf)))
register(Metric("mae", lambda y, p, labels=None: float(skm.mean_absolute_error(y, p)), True, "value", ("regression",),
                (0.0, math.inf)))
register(Metric("r2", lambda y, p, labels=None: float(skm.r2_score(y, p)), False, "value", ("regression",),
                (-math.inf, 1.0)))


def get_metric(name: str) -> Metric:
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; expected one of {', '.join(sorted(METRICS))}") from None


def score(name: str, y_true, y_pred, labels=None) -> float:
    """Score predictions with the named metric; `labels` fixes the class order for probability metrics."""
    return get_metric(name).function(y_true, y_pred, labels=labels)


def better(name: str, a: float, b: float) -> bool:
    """True when score `a` is strictly better than `b` under the metric's direction."""
    return a < b if get_metric(name).is_lower_better else a > b
