"""Calibration and validation: a ladder of reference solutions sets the milestones; the critic rejects bad tasks.

Milestone rule, in "goodness" g (the score, negated when lower is better), with b, l, e, o the baseline, linear,
ensemble and oracle scores and gap = 2% of g(o) - g(b):
  median = l (a plain linear model is the median entry), raised to b + gap when l does not beat b;
  bronze = max(best of l and e, median + gap);  silver = bronze + 0.5 (o - bronze);  gold = bronze + 0.8 (o - bronze).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.compose import ColumnTransformer
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from sandmle.metrics import get_metric, score
from sandmle.synth.columns import column_kinds


def _identifier_numbers(frame: pd.DataFrame) -> np.ndarray:
    # Ids such as "iri_00412" leak when their number follows the label; the probe reads that number.
    return frame.iloc[:, 0].astype(str).str.extract(r"(\d+)", expand=False).astype(float).to_numpy().reshape(-1, 1)


def _joined_text(frame: pd.DataFrame) -> np.ndarray:
    # The vectorizer wants one string per row; missing notes read as empty ones.
    return frame.fillna("").astype(str).agg(" ".join, axis=1).to_numpy()


def column_encoder(kind: str):
    """How the reference models read a column of this kind, or None to leave it out.

    The reference models are plain: numbers are imputed and scaled, categorical strings one-hot encoded as they are
    spelt (no lower-casing or stripping, so inconsistent spelling costs them what it would cost a careless entrant).
    """
    if kind in ("numeric", "pixel"):
        return make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    if kind == "categorical":
        return make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"),
                             OneHotEncoder(handle_unknown="ignore", sparse_output=False))
    if kind == "identifier":
        return make_pipeline(FunctionTransformer(_identifier_numbers), SimpleImputer(strategy="median"))
    if kind == "text":  # a bag of words and word pairs, as a first text entry would use
        return make_pipeline(FunctionTransformer(_joined_text),
                             TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=1000, sublinear_tf=True))
    return None  # image paths: the reference models read an image task's pixel columns instead


def make_preprocessor(frame: pd.DataFrame, *, include_identifier: bool = False) -> ColumnTransformer:
    """One encoder per column kind present in `frame` (see `column_encoder`); the id column only when asked."""
    by_kind: dict[str, list[str]] = {}
    for column, kind in column_kinds(frame).items():
        if kind != "identifier" or include_identifier:
            by_kind.setdefault(kind, []).append(column)
    parts = [(kind, encoder, columns) for kind, columns in by_kind.items()
             if (encoder := column_encoder(kind)) is not None]
    if not parts:
        raise ValueError(f"no column the reference models can read among {list(frame.columns)[:10]}")
    return ColumnTransformer(parts, remainder="drop", sparse_threshold=0.0)


def _predict(model, x, metric: str):
    prediction = get_metric(metric).prediction
    if prediction == "probability":
        proba = model.predict_proba(x)
        return proba[:, 1] if proba.shape[1] == 2 else proba
    return model.predict(x)


class OutOfBagTunedForest(BaseEstimator):
    """A random forest whose depth and leaf size are tuned by out-of-bag score: on a few hundred rows this picks as
    well as 3-fold cross-validation, with one fit per setting instead of four."""

    def __init__(self, *, regression: bool = False, n_estimators: int = 60, random_state: int = 0):
        self.regression = regression
        self.n_estimators = n_estimators
        self.random_state = random_state

    def fit(self, x, y):
        forest_class = RandomForestRegressor if self.regression else RandomForestClassifier
        best_score = -np.inf
        for params in ParameterGrid({"max_depth": [4, None], "min_samples_leaf": [1, 3]}):
            forest = forest_class(n_estimators=self.n_estimators, oob_score=True, random_state=self.random_state,
                                  n_jobs=1, **params)
            with warnings.catch_warnings():  # a row left out of every tree only blurs the score a little
                warnings.simplefilter("ignore", UserWarning)
                forest.fit(x, y)
            if forest.oob_score_ > best_score:
                self.forest_, self.best_params_, best_score = forest, params, forest.oob_score_
        if not self.regression:
            self.classes_ = self.forest_.classes_
        return self

    def predict(self, x):
        return self.forest_.predict(x)

    def predict_proba(self, x):
        return self.forest_.predict_proba(x)


def _models(task_type: str, rng_seed: int, x_train: pd.DataFrame) -> dict:
    regression = task_type == "regression"
    ensemble = make_pipeline(make_preprocessor(x_train), OutOfBagTunedForest(regression=regression, random_state=rng_seed))
    if regression:
        return {"baseline": DummyRegressor(), "linear": make_pipeline(make_preprocessor(x_train), Ridge()),
                "ensemble": ensemble}
    return {"baseline": DummyClassifier(strategy="prior"),
            "linear": make_pipeline(make_preprocessor(x_train), LogisticRegression(max_iter=500)), "ensemble": ensemble}


def ladder_scores(*, x_train: pd.DataFrame, y_train, x_test: pd.DataFrame, y_test, oracle_prediction, metric: str,
                  task_type: str, labels=None, rng_seed: int = 0) -> dict[str, float]:
    """Fit the baseline, linear and ensemble references on the training frame and score them and the oracle on test."""
    ladder = {}
    for name, model in _models(task_type, rng_seed, x_train).items():
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
    model_class = DecisionTreeRegressor if task_type == "regression" else DecisionTreeClassifier
    for column, kind in column_kinds(train).items():
        # One pixel alone is no leak worth a fit, and a text task's notes are its input, not a leak.
        encoder = column_encoder(kind) if kind not in ("pixel", "text") else None
        if encoder is None or train[column].isna().all():
            continue
        model = make_pipeline(encoder, model_class(max_depth=4, random_state=0))
        model.fit(train[[column]], y_train)
        scores[column] = score(metric, y_test, _predict(model, test[[column]], metric), labels=labels)
    return scores


def _level_counts(train: pd.Series, test: pd.Series) -> np.ndarray:
    """A 2 x levels table of counts; levels seen fewer than 10 times in all pool into one, so the test is sound."""
    counts = pd.DataFrame({"train": train.dropna().astype(str).value_counts(),
                           "test": test.dropna().astype(str).value_counts()}).fillna(0)
    rare = counts.sum(axis=1) < 10
    table = counts[~rare]
    if rare.any():
        table = pd.concat([table, counts[rare].sum().to_frame("rare").T])
    return table.to_numpy().T


def shift_pvalues(train: pd.DataFrame, test: pd.DataFrame) -> dict[str, float]:
    """A p-value per feature column that train and test come from one distribution: KS on numbers and on
    the word counts of text, chi-squared on categorical levels."""
    pvalues = {}
    for column, kind in column_kinds(train).items():
        if kind == "numeric":
            a, b = train[column].dropna(), test[column].dropna()
            if len(a) > 10 and len(b) > 10:
                pvalues[column] = float(stats.ks_2samp(a, b).pvalue)
        elif kind == "categorical":
            table = _level_counts(train[column], test[column])
            if table.shape[1] > 1 and (table.sum(axis=1) > 10).all():
                pvalues[column] = float(stats.chi2_contingency(table)[1])
        elif kind == "text":  # notes of one generator differ in words, not in length
            a, b = (values.dropna().astype(str).str.split().str.len() for values in (train[column], test[column]))
            if len(a) > 10 and len(b) > 10:
                pvalues[column] = float(stats.ks_2samp(a, b).pvalue)
    return pvalues
