"""Calibration and validation: a ladder of reference solutions sets the milestones; the critic rejects bad tasks.

The ladder: baseline (a constant), linear and ensemble (plain models, see `column_encoder`), skilled (a model search
that knows the rule's family, see `skilled.py`) and the oracle (reads the clean frame: the ceiling, shown but never a
milestone). Milestone rule, in "goodness" g (the score, negated when lower is better), with b, l, p, s the baseline,
linear, best plain (linear or ensemble) and skilled scores and gap = 2% of g(oracle) - g(b):
  gold = s (so gold is certified reachable from the training rows), or p where a plain model scored above the
  skilled search on test (no milestone lies above a learned reference), raised to b + 4 gap when neither beats that;
  median = l (a plain linear model is the median entry), at least b + gap and at most gold - 3 gap;
  bronze = p (what a plain tuned model reaches), at least median + gap and at most gold - 2 gap;
  silver = halfway from bronze to gold, at least bronze + gap and at most gold - gap.
Thresholds are rounded to 6 decimals towards the easier side, so the reference that set one reaches it.
Headroom = (best learned reference - b) / (oracle - b); the critic rejects a task whose skilled reference recovers
less than MIN_SKILLED_HEADROOM of the oracle's headroom (its rows do not carry the rule).
"""

from __future__ import annotations

import math
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

from sandmle.synth.columns import column_kinds
from sandmle.synth.skilled import skilled_score
from sandmle.tasks.metrics import get_metric, score

MIN_SKILLED_HEADROOM = 0.3  # share of the oracle's headroom the skilled reference must recover
LEARNED_REFERENCES = ("linear", "ensemble", "skilled")


def _identifier_numbers(frame: pd.DataFrame) -> np.ndarray:
    # Ids such as "r00412" leak when their number follows the label; the probe reads that number.
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
                  task_type: str, labels=None, rng_seed: int = 0, family: str | None = None) -> dict[str, float]:
    """Fit the baseline, linear, ensemble and (given the rule's family) skilled references on the training frame and
    score them and the oracle on test."""
    ladder = {}
    for name, model in _models(task_type, rng_seed, x_train).items():
        model.fit(x_train, y_train)
        ladder[name] = score(metric, y_test, _predict(model, x_test, metric), labels=labels)
    if family is not None:
        ladder["skilled"] = skilled_score(family, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test,
                                          metric=metric, task_type=task_type, labels=labels, rng_seed=rng_seed)
    ladder["oracle"] = score(metric, y_test, oracle_prediction, labels=labels)
    return ladder


def _goodness(ladder: dict[str, float], is_lower_better: bool) -> dict[str, float]:
    sign = -1.0 if is_lower_better else 1.0
    return {name: sign * value for name, value in ladder.items()}


def _gap(g: dict[str, float]) -> float:
    return 0.02 * abs(g["oracle"] - g["baseline"]) or 1e-5


def milestone_plan(ladder: dict[str, float], *, is_lower_better: bool,
                   shift: float = 0.0) -> tuple[dict[str, float], dict[str, str]]:
    """The thresholds (see the module's rule) and, for each, the reference that set it or the rule that moved it.

    `shift` (a difficulty level's milestone spacing, sandmle.synth.levels) then moves median, bronze and silver that
    share of the way to gold (> 0) or to the baseline (< 0); each moves by the same share, so their order holds."""
    sign = -1.0 if is_lower_better else 1.0
    g = _goodness(ladder, is_lower_better)
    gap = _gap(g)
    top_name = "skilled" if "skilled" in g else "ensemble"  # a ladder without the skilled tier (older bundles)
    plain = max(("linear", "ensemble"), key=lambda name: g[name])
    if g[plain] > g[top_name]:
        top_name = plain
    gold, gold_source = (g[top_name], top_name) if g[top_name] >= g["baseline"] + 4 * gap else \
        (g["baseline"] + 4 * gap, "baseline + 4 gaps")
    median, median_source = g["linear"], "linear"
    if median < g["baseline"] + gap:
        median, median_source = g["baseline"] + gap, "baseline + 1 gap"
    if median > gold - 3 * gap:
        median, median_source = gold - 3 * gap, "gold - 3 gaps"
    bronze, bronze_source = g[plain], plain
    if bronze < median + gap:
        bronze, bronze_source = median + gap, "median + 1 gap"
    if bronze > gold - 2 * gap:
        bronze, bronze_source = gold - 2 * gap, "gold - 2 gaps"
    silver, silver_source = (bronze + gold) / 2, "halfway from bronze to gold"
    silver = min(max(silver, bronze + gap), gold - gap)
    thresholds = {"median": median, "bronze": bronze, "silver": silver, "gold": gold}
    sources = {"median": median_source, "bronze": bronze_source, "silver": silver_source, "gold": gold_source}
    if shift:
        for name in ("median", "bronze", "silver"):
            end = gold if shift > 0 else g["baseline"]
            thresholds[name] += abs(shift) * (end - thresholds[name])
            sources[name] += f", moved {abs(shift):g} of the way to {'gold' if shift > 0 else 'the baseline'} (level)"
    easier = {name: math.floor(value * 1e6 + 1e-9) / 1e6 for name, value in thresholds.items()}
    return {name: sign * value + 0.0 for name, value in easier.items()}, sources


def milestone_thresholds(ladder: dict[str, float], *, is_lower_better: bool, shift: float = 0.0) -> dict[str, float]:
    return milestone_plan(ladder, is_lower_better=is_lower_better, shift=shift)[0]


def headroom(ladder: dict[str, float], *, is_lower_better: bool, references=LEARNED_REFERENCES) -> float:
    """(best of `references` - baseline) / (oracle - baseline) on the task's metric; 0 when the oracle is no better."""
    g = _goodness(ladder, is_lower_better)
    span = g["oracle"] - g["baseline"]
    learned = max(g[name] for name in references if name in g)
    return round(float((learned - g["baseline"]) / span), 4) if span > 0 else 0.0


def critic(*, ladder: dict[str, float], milestones: dict[str, float], is_lower_better: bool, leak_scores: dict[str, float],
           shift_pvalues: dict[str, float], implausible: dict[str, float] | None = None,
           allowed_implausible: float = 0.0) -> list[str]:
    """Reasons to reject the task (empty when it passes). implausible maps a column to the share of its readings
    outside its declared range; more than allowed_implausible (the stated glitch share) rejects the task."""
    sign = -1.0 if is_lower_better else 1.0
    g = _goodness(ladder, is_lower_better)
    span = g["oracle"] - g["baseline"]
    reasons = []
    if span < 0.05 * max(abs(ladder["baseline"]), abs(ladder["oracle"]), 1e-6):
        reasons.append(f"flat ladder: the oracle ({ladder['oracle']:.4g}) barely beats the baseline ({ladder['baseline']:.4g})")
    if g["oracle"] - max(g["ensemble"], g["linear"]) < 0.1 * span:
        reasons.append(f"no headroom: the tuned ensemble ({ladder['ensemble']:.4g}) is already near the oracle ({ladder['oracle']:.4g}), "
                       "so gold takes no effort")
    if "skilled" in ladder and span > 0:
        recovered = headroom(ladder, is_lower_better=is_lower_better, references=("skilled",))
        if recovered < MIN_SKILLED_HEADROOM:
            reasons.append(f"low headroom: the skilled reference ({ladder['skilled']:.4g}) recovers {recovered:.2f} of the "
                           f"oracle's headroom (at least {MIN_SKILLED_HEADROOM} needed), so the training rows do not "
                           "carry the rule")
    for column, value in leak_scores.items():
        if sign * value >= g["oracle"] - 0.15 * span:
            reasons.append(f"leak: column {column!r} alone scores {value:.4g}, nearly the oracle's {ladder['oracle']:.4g}")
    for column, pvalue in shift_pvalues.items():
        if pvalue < 1e-3:
            reasons.append(f"train/test shift in {column!r} (KS p={pvalue:.2g}) that the spec did not ask for")
    for column, share in (implausible or {}).items():
        if share > allowed_implausible:
            reasons.append(f"implausible: {share:.1%} of column {column!r} lies outside its declared range (the noise "
                           f"allows {allowed_implausible:.1%})")
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
