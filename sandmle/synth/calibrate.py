"""Calibration and validation: a ladder of reference solutions sets the milestones; the critic rejects bad tasks.

Milestone rule, in "goodness" g (the score, negated when lower is better), with b, l, e, o the baseline, linear,
ensemble and oracle scores and gap = 2% of g(o) - g(b):
  median = l (a plain linear model is the median entry), raised to b + gap when l does not beat b;
  bronze = max(best of l and e, median + gap);  silver = bronze + 0.5 (o - bronze);  gold = bronze + 0.8 (o - bronze).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from sandmle.metrics import get_metric, score


def _predict(model, x: np.ndarray, metric: str):
    prediction = get_metric(metric).prediction
    if prediction == "probability":
        proba = model.predict_proba(x)
        return proba[:, 1] if proba.shape[1] == 2 else proba
    return model.predict(x)


def _models(task_type: str, rng_seed: int) -> dict:
    if task_type == "regression":
        return {
            "baseline": DummyRegressor(),
            "linear": make_pipeline(SimpleImputer(), StandardScaler(), Ridge()),
            "ensemble": make_pipeline(SimpleImputer(), GridSearchCV(
                RandomForestRegressor(n_estimators=60, random_state=rng_seed, n_jobs=1),
                {"max_depth": [4, None], "min_samples_leaf": [1, 3]}, cv=3)),
        }
    return {
        "baseline": DummyClassifier(strategy="prior"),
        "linear": make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(max_iter=500)),
        "ensemble": make_pipeline(SimpleImputer(), GridSearchCV(
            RandomForestClassifier(n_estimators=60, random_state=rng_seed, n_jobs=1),
            {"max_depth": [4, None], "min_samples_leaf": [1, 3]}, cv=3)),
    }


def ladder_scores(*, x_train, y_train, x_test, y_test, oracle_prediction, metric: str, task_type: str,
                  labels=None, rng_seed: int = 0) -> dict[str, float]:
    ladder = {}
    for name, model in _models(task_type, rng_seed).items():
        model.fit(x_train, y_train)
        ladder[name] = score(metric, y_test, _predict(model, x_test, metric), labels=labels)
    ladder["oracle"] = score(metric, y_test, oracle_prediction, labels=labels)
    return ladder


def milestone_thresholds(ladder: dict[str, float], *, is_lower_better: bool) -> dict[str, float]:
    sign = -1.0 if is_lower_better else 1.0
    g = {name: sign * value for name, value in ladder.items()}
    gap = 0.02 * abs(g["oracle"] - g["baseline"]) or 1e-6
    median = g["linear"] if g["linear"] > g["baseline"] + gap else g["baseline"] + gap
    bronze = max(g["linear"], g["ensemble"], median + gap)
    silver = bronze + 0.5 * (g["oracle"] - bronze)
    gold = bronze + 0.8 * (g["oracle"] - bronze)
    silver, gold = max(silver, bronze + gap), max(gold, bronze + 2 * gap)
    return {name: round(sign * value, 6) for name, value in
            {"median": median, "bronze": bronze, "silver": silver, "gold": gold}.items()}


def critic(*, ladder: dict[str, float], milestones: dict[str, float], is_lower_better: bool, leak_scores: dict[str, float],
           shift_pvalues: dict[str, float]) -> list[str]:
    """Reasons to reject the task (empty when it passes)."""
    sign = -1.0 if is_lower_better else 1.0
    g = {name: sign * value for name, value in ladder.items()}
    span = g["oracle"] - g["baseline"]
    reasons = []
    if span < 0.05 * max(abs(ladder["baseline"]), abs(ladder["oracle"]), 1e-6):
        reasons.append(f"flat ladder: the oracle ({ladder['oracle']:.4g}) barely beats the baseline ({ladder['baseline']:.4g})")
    if g["oracle"] - max(g["ensemble"], g["linear"]) < 0.1 * span:
        reasons.append(f"no headroom: the tuned ensemble ({ladder['ensemble']:.4g}) is already near the oracle ({ladder['oracle']:.4g}), "
                       "so gold takes no effort")
    for column, value in leak_scores.items():
        if sign * value >= g["oracle"] - 0.15 * span:
            reasons.append(f"leak: column {column!r} alone scores {value:.4g}, nearly the oracle's {ladder['oracle']:.4g}")
    for column, pvalue in shift_pvalues.items():
        if pvalue < 1e-3:
            reasons.append(f"train/test shift in {column!r} (KS p={pvalue:.2g}) that the spec did not ask for")
    return reasons


def single_column_scores(train: pd.DataFrame, test: pd.DataFrame, y_train, y_test, *, metric: str, task_type: str,
                         labels=None) -> dict[str, float]:
    """How well each public column alone (the id included) predicts the label: the critic's leak probe."""
    scores = {}
    for column in train.columns:
        if column.startswith("px_") or column == "image":
            continue
        model_class = DecisionTreeRegressor if task_type == "regression" else DecisionTreeClassifier
        model = make_pipeline(SimpleImputer(), model_class(max_depth=4, random_state=0))
        x_train = pd.to_numeric(train[column], errors="coerce").to_frame()
        x_test = pd.to_numeric(test[column], errors="coerce").to_frame()
        if x_train.isna().all().all():
            continue
        model.fit(x_train, y_train)
        scores[column] = score(metric, y_test, _predict(model, x_test, metric), labels=labels)
    return scores


def shift_pvalues(train: pd.DataFrame, test: pd.DataFrame) -> dict[str, float]:
    pvalues = {}
    for column in train.columns:
        if column in ("id", "image") or column.startswith("px_"):
            continue
        a, b = pd.to_numeric(train[column], errors="coerce").dropna(), pd.to_numeric(test[column], errors="coerce").dropna()
        if len(a) > 10 and len(b) > 10:
            pvalues[column] = float(stats.ks_2samp(a, b).pvalue)
    return pvalues
