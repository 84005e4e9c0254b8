"""The skilled reference: a small model search on the training rows that knows the hidden rule's family, never its
parameters, as a strong entrant who has found the structure would work. Its score sets the gold milestone.

Each family names a few candidate pipelines over features that fit its structure (tuned shallow trees for trees and
rule lists, a searched 1-D projection with bins for piecewise bands, phase features for modular steps, nearest
neighbours for prototypes, pairwise products for interactions, splines for additive shapes, quadrant means, stroke
angles and blob counts for images, negation-aware word counts for text); 3-fold cross-validation on the training
rows, scored with the task's metric, picks one, which is refitted on all of them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, PolynomialFeatures, RobustScaler, SplineTransformer
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from sandmle.synth.columns import PIXEL_PREFIX, columns_of_kind
from sandmle.synth.rules.image import blob_counts, stroke_angles
from sandmle.synth.text_corpus import NEGATIONS
from sandmle.synth.texts import tokenize
from sandmle.tasks.metrics import get_metric, score

FOLDS = 3


class TidyTable(BaseEstimator, TransformerMixin):
    """Numbers robust-scaled with gaps filled, categorical levels read case- and space-blind and one-hot encoded: the
    cleaning a careful entrant does before modelling (the plain references keep raw spellings on purpose)."""

    def fit(self, x: pd.DataFrame, y=None):
        self.numeric_ = columns_of_kind(x, "numeric")
        self.levels_ = {c: sorted(set(self._tidy(x[c]).dropna())) for c in columns_of_kind(x, "categorical")}
        numbers = x[self.numeric_].to_numpy(dtype=float) if self.numeric_ else np.zeros((len(x), 0))
        self.imputer_ = SimpleImputer(strategy="median", keep_empty_features=True).fit(numbers) if self.numeric_ else None
        self.scaler_ = RobustScaler().fit(self.imputer_.transform(numbers)) if self.numeric_ else None
        return self

    @staticmethod
    def _tidy(values: pd.Series) -> pd.Series:
        return values.astype("string").str.strip().str.lower()

    def transform(self, x: pd.DataFrame) -> np.ndarray:
        parts = []
        if self.numeric_:
            numbers = self.scaler_.transform(self.imputer_.transform(x[self.numeric_].to_numpy(dtype=float)))
            parts.append(np.clip(numbers, -6, 6))  # outliers and unit slips would dominate distances and products
        for column, levels in self.levels_.items():
            tidy = self._tidy(x[column])
            parts.append(np.column_stack([(tidy == level).fillna(False).to_numpy(dtype=float) for level in levels]))
        return np.hstack(parts) if parts else np.zeros((len(x), 1))


class BestProjectionBins(BaseEstimator, TransformerMixin):
    """Appends s = cos(a) z_i + sin(a) z_j for the pair of columns and angle whose 1-D bins best separate the classes
    on the training rows: the learned projection of a piecewise-bands rule (sklearn has no non-monotone 1-D search)."""

    def __init__(self, candidates: int = 4, angles: int = 18, bins: int = 8):
        self.candidates, self.angles, self.bins = candidates, angles, bins

    def fit(self, z: np.ndarray, y):
        y = np.asarray(y, dtype=int)
        spread = [_binned_fit(z[:, i], y, self.bins) for i in range(z.shape[1])]
        ranked = np.argsort(spread)[::-1]  # a band rule's columns each bin the classes better than distractors do
        best = (-1.0, 0, 0, 0.0)
        for i in ranked[: self.candidates]:
            for j in ranked[: 2 * self.candidates]:
                if j == i:
                    continue
                for angle in np.linspace(0, np.pi, self.angles, endpoint=False):
                    fit = _binned_fit(np.cos(angle) * z[:, i] + np.sin(angle) * z[:, j], y, self.bins)
                    if fit > best[0]:
                        best = (fit, int(i), int(j), float(angle))
        _, self.first_, self.second_, self.angle_ = best
        return self

    def transform(self, z: np.ndarray) -> np.ndarray:
        s = np.cos(self.angle_) * z[:, self.first_] + np.sin(self.angle_) * z[:, self.second_]
        return s.reshape(-1, 1)


class PhaseFeatures(BaseEstimator, TransformerMixin):
    """Adds sin and cos of 2 pi x / P for the column and period P whose phase bins best predict the classes: the
    periodic features of a modular-steps rule. Periods are searched over the column's spread; the origin needs no
    search, since it only shifts the phase."""

    def __init__(self, periods: int = 40, bins: int = 12):
        self.periods, self.bins = periods, bins

    def fit(self, z: np.ndarray, y):
        y = np.asarray(y, dtype=int)
        best = (-1.0, 0, 1.0)
        for column in range(z.shape[1]):
            low, high = np.quantile(z[:, column], [0.02, 0.98])
            for period in np.geomspace((high - low) / 8 or 1.0, (high - low) * 1.5 or 1.0, self.periods):
                phase = np.mod(z[:, column], period) / period
                fit = _binned_fit(phase, y, self.bins, quantile=False)
                if fit > best[0]:
                    best = (fit, column, float(period))
        _, self.column_, self.period_ = best
        return self

    def transform(self, z: np.ndarray) -> np.ndarray:
        angle = 2 * np.pi * z[:, self.column_] / self.period_
        return np.column_stack([z, np.sin(angle), np.cos(angle)])


def _binned_fit(values: np.ndarray, y: np.ndarray, bins: int, *, quantile: bool = True) -> float:
    """Share of rows whose class is their bin's majority class (bins by quantile, or equal width on [0, 1))."""
    if quantile:
        edges = np.quantile(values, np.linspace(0, 1, bins + 1)[1:-1])
        index = np.searchsorted(edges, values)
    else:
        index = np.minimum((values * bins).astype(int), bins - 1)
    table = np.zeros((bins, int(y.max()) + 1))
    np.add.at(table, (index, y), 1)
    return float(table.max(axis=1).sum() / len(y))


def _image_features(x: pd.DataFrame) -> np.ndarray:
    """Quadrant means, the structure tensor's stroke angle (as cos and sin of twice it) and blob counts at a few
    brightness thresholds: what one computes from pixels knowing the image family, not its parameters."""
    pixels = x[[c for c in x.columns if c.startswith(PIXEL_PREFIX)]].to_numpy(dtype=float)
    pixels = np.nan_to_num(pixels, nan=0.0)
    side = int(round(np.sqrt(pixels.shape[1])))
    images = pixels.reshape(-1, side, side)
    half = side // 2
    quadrants = [images[:, :half, :half], images[:, :half, half:], images[:, half:, :half], images[:, half:, half:]]
    means = np.column_stack([q.mean((1, 2)) for q in quadrants])
    angle = np.radians(stroke_angles(images))
    top = np.quantile(pixels, 0.999) or 1.0
    counts = [blob_counts(images, share * top, 2) for share in (0.35, 0.5, 0.65)]
    ranked = means.argsort(axis=1).argsort(axis=1)  # which quadrant is brightest, free of overall brightness
    return np.column_stack([means, ranked, np.cos(2 * angle), np.sin(2 * angle), *counts])


def _negation_marked(frame: pd.DataFrame) -> list[str]:
    """Words of each note, a word right after no/not/without written as not_<word>: counted apart, as the rules do."""
    texts = []
    for row in frame.fillna("").astype(str).agg(" ".join, axis=1):
        tokens = tokenize(row)
        texts.append(" ".join(f"not_{t}" if i and tokens[i - 1] in NEGATIONS else t for i, t in enumerate(tokens)))
    return texts


def _classifier_candidates(family: str, n_columns: int) -> list:
    tidy = TidyTable
    tree = [make_pipeline(tidy(), DecisionTreeClassifier(max_depth=d, min_samples_leaf=leaf, random_state=0))
            for d, leaf in ((3, 3), (5, 2), (7, 1))]
    if family in ("threshold_tree", "rule_list"):
        return tree
    if family == "linear_logit":
        return [make_pipeline(tidy(), PolynomialFeatures(2, include_bias=False), LogisticRegression(C=c, max_iter=300))
                for c in (0.1, 1.0)] + [make_pipeline(tidy(), LogisticRegression(C=1.0, max_iter=300))]
    if family == "piecewise_bands":
        return [make_pipeline(tidy(), BestProjectionBins(),
                              DecisionTreeClassifier(max_leaf_nodes=n, min_samples_leaf=3, random_state=0))
                for n in (5, 8)]
    if family == "modular_steps":
        return [make_pipeline(tidy(), PhaseFeatures(), DecisionTreeClassifier(max_depth=d, min_samples_leaf=2,
                                                                             random_state=0)) for d in (3, 5)] + tree[2:]
    if family == "nearest_prototype":  # distances over the rule's few columns, found by their class-mean spread
        return [make_pipeline(tidy(), SelectKBest(f_classif, k=min(k, n_columns)), KNeighborsClassifier(n_neighbors=n,
                                                                                                  weights="distance"))
                for k in (3, 5) for n in (7,)]
    if family in ("bright_quadrant", "bar_orientation", "blob_count"):
        features = FunctionTransformer(_image_features)
        return [make_pipeline(features, DecisionTreeClassifier(max_depth=d, min_samples_leaf=3, random_state=0))
                for d in (3, 5)] + [make_pipeline(features, RobustScaler(), LogisticRegression(C=1.0, max_iter=500))]
    if family in ("key_phrases", "lexicon_counts"):
        words = make_pipeline(FunctionTransformer(_negation_marked), CountVectorizer(ngram_range=(1, 2), min_df=2))
        return [make_pipeline(words, LogisticRegression(C=c, max_iter=500)) for c in (0.3, 3.0)]
    return tree


def _regressor_candidates(family: str) -> list:
    tidy = TidyTable
    if family in ("lexicon_score",):
        words = make_pipeline(FunctionTransformer(_negation_marked), CountVectorizer(min_df=2))
        return [make_pipeline(words, Ridge(alpha=a)) for a in (0.3, 3.0)]
    splines = make_pipeline(tidy(), SplineTransformer(n_knots=6, degree=3))
    candidates = [make_pipeline(splines, Ridge(alpha=a)) for a in (0.1, 3.0)]
    if family in ("interaction_products", "hinge_regimes"):
        candidates += [make_pipeline(tidy(), PolynomialFeatures(2, include_bias=False), Ridge(alpha=a)) for a in (0.1, 3.0)]
    if family == "hinge_regimes":
        candidates.append(make_pipeline(tidy(), DecisionTreeRegressor(max_depth=5, min_samples_leaf=4, random_state=0)))
    return candidates


def _forest(*, regression: bool):
    """A random forest over the tidied table: a strong entrant tries the all-rounder too, so the search never does
    worse than a plain forest by more than cross-validation's noise."""
    forest = (RandomForestRegressor if regression else RandomForestClassifier)(n_estimators=60, min_samples_leaf=2,
                                                                              random_state=0, n_jobs=1)
    return make_pipeline(TidyTable(), forest)


def _predict(model, x, metric: str):
    if get_metric(metric).prediction == "probability":
        proba = model.predict_proba(x)
        return proba[:, 1] if proba.shape[1] == 2 else proba
    return model.predict(x)


def skilled_reference(family: str, *, x_train: pd.DataFrame, y_train, metric: str, task_type: str, labels=None,
                      rng_seed: int = 0):
    """The candidate of `family`'s search with the best cross-validated score on the training rows, refitted on all."""
    regression = task_type == "regression"
    candidates = _regressor_candidates(family) if regression else _classifier_candidates(family, x_train.shape[1])
    if columns_of_kind(x_train, "numeric", "categorical"):  # a forest has nothing to read on pixels or prose alone
        candidates.append(_forest(regression=regression))
    y_train = np.asarray(y_train)
    splitter = (KFold(FOLDS, shuffle=True, random_state=rng_seed) if regression
                else StratifiedKFold(FOLDS, shuffle=True, random_state=rng_seed))
    sign = -1.0 if get_metric(metric).is_lower_better else 1.0
    best, best_score = candidates[0], -np.inf
    if len(candidates) > 1:
        folds = list(splitter.split(x_train, y_train))
        for candidate in candidates:
            fold_scores = []
            for fit_rows, held_rows in folds:
                model = clone(candidate)
                with warnings.catch_warnings():  # small folds warn about convergence and thin classes
                    warnings.simplefilter("ignore")
                    model.fit(x_train.iloc[fit_rows], y_train[fit_rows])
                    if not regression and len(model.classes_) < 2:  # a fold left with one class ranks nothing
                        continue
                    prediction = _predict(model, x_train.iloc[held_rows], metric)
                fold_scores.append(_fold_score(metric, y_train[held_rows], prediction, model, labels))
            if not fold_scores:
                continue
            if sign * np.mean(fold_scores) > best_score:
                best, best_score = candidate, sign * np.mean(fold_scores)
    model = clone(best)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x_train, y_train)
    return model


def _fold_score(metric: str, y_true, prediction, model, labels) -> float:
    """The metric on a held-out fold; probability columns are aligned to every label, since a fold may lack one."""
    if labels is not None and get_metric(metric).prediction == "probability" and np.ndim(prediction) == 2:
        full = np.full((len(prediction), len(labels)), 1e-6)
        for column, label in enumerate(model.classes_):
            full[:, list(labels).index(label)] = prediction[:, column]
        prediction = full / full.sum(axis=1, keepdims=True)
    try:
        return score(metric, y_true, prediction, labels=labels)
    except ValueError:  # a fold holding one class has no AUC: it tells nothing between candidates
        return 0.0


def skilled_score(family: str, *, x_train, y_train, x_test, y_test, metric: str, task_type: str, labels=None,
                  rng_seed: int = 0) -> float:
    model = skilled_reference(family, x_train=x_train, y_train=y_train, metric=metric, task_type=task_type,
                              labels=labels, rng_seed=rng_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return score(metric, y_test, _predict(model, x_test, metric), labels=labels)
