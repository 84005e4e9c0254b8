"""What every hidden-rule family shares: the family record, the choice of features, standardisation, split conditions
on numeric or categorical columns, and the class-balance test that keeps every class in use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from sandmle.synth.columns import columns_of_kind

MIN_SHARE_RATIO = 0.4  # every class holds at least 0.4 / n_classes of the rows a rule is designed on
MAX_SINGLE_COLUMN_FIT = 0.8  # no one column may explain more of the labels than this (the critic would call it a leak)


class RuleDesignError(ValueError):
    """A family cannot build a rule over these features (for example, too few numeric columns)."""


@dataclass(frozen=True)
class RuleFamily:
    """One hidden-rule family: how to design a rule on preview features, re-execute it, and say it in words.

    design(features, n_classes, rng) -> rule dict (JSON-serialisable, with "family" and "features" keys)
    apply(rule, features) -> clean labels (class indices, or values for regression)
    describe(rule, label_names) -> plain words for reviewers
    """

    name: str
    task: str  # classification | regression | image | text
    design: Callable[[pd.DataFrame, int, np.random.Generator], dict]
    apply: Callable[[dict, pd.DataFrame], np.ndarray]
    describe: Callable[[dict, list[str]], str]
    feature_kinds: tuple[str, ...] = ("numeric",)  # the column kinds the family may read
    min_features: int = 1  # columns of those kinds it needs

    def accepts(self, features: pd.DataFrame) -> bool:
        return len(columns_of_kind(features, *self.feature_kinds)) >= self.min_features


def number(value: float) -> float:
    """A plain float rounded to 6 significant digits: short in rule.json and exact when re-executed."""
    return float(f"{float(value):.6g}")


def pick_features(features: pd.DataFrame, rng: np.random.Generator, *, kinds: tuple[str, ...] = ("numeric",),
                  low: int = 2, high: int = 4, minimum: int = 1) -> list[str]:
    """A random subset of the usable columns, leaving at least one column of the frame unused as a distractor."""
    usable = columns_of_kind(features, *kinds)
    if len(usable) < minimum:
        raise RuleDesignError(f"needs at least {minimum} column(s) of kind {', '.join(kinds)}; found {len(usable)}")
    size = int(rng.integers(low, high + 1))
    size = max(minimum, min(size, len(usable), len(features.columns) - 1))
    return sorted(rng.choice(usable, size=size, replace=False).tolist())


def standard_scale(features: pd.DataFrame, columns: list[str]) -> tuple[dict, dict]:
    centre = {c: number(features[c].median()) for c in columns}
    scale = {c: number(features[c].std() or 1.0) for c in columns}
    return centre, scale


def standardise(features: pd.DataFrame, columns: list[str], centre: dict, scale: dict) -> np.ndarray:
    if not columns:
        return np.zeros((len(features), 0))
    return np.column_stack([(features[c].to_numpy(dtype=float) - centre[c]) / scale[c] for c in columns])


def minus(value: float) -> str:
    """"- 2.5" or "+ 2.5" for subtracting value, so descriptions never read "x - -2.5"."""
    return f"- {value:.4g}" if value >= 0 else f"+ {-value:.4g}"


def describe_standardised(columns: list[str], centre: dict, scale: dict) -> str:
    return "; ".join(f"z({c}) = ({c} {minus(centre[c])}) / {scale[c]:.4g}" for c in columns)


def where_standardised(rule: dict, columns_key: str = "features") -> str:
    """The closing sentence of a description that says how each z(...) is computed."""
    return ". Where " + describe_standardised(rule[columns_key], rule["centre"], rule["scale"]) + "."


def design_condition(values: pd.Series, share: float, rng: np.random.Generator) -> dict:
    """A test on one column that about `share` of `values` pass: a threshold on numbers, a set of levels on strings."""
    column = str(values.name)
    if pd.api.types.is_numeric_dtype(values):
        if rng.random() < 0.5:
            return {"feature": column, "op": ">", "threshold": number(values.quantile(1.0 - share))}
        return {"feature": column, "op": "<=", "threshold": number(values.quantile(share))}
    shares = values.astype(str).value_counts(normalize=True)
    levels = [str(level) for level in rng.permutation(sorted(shares.index))]
    if len(levels) < 2:
        raise RuleDesignError(f"column {column!r} has a single level")
    cumulative = np.cumsum([shares[level] for level in levels])[:-1]  # never all levels: that would be no test
    cut = int(np.argmin(np.abs(cumulative - share))) + 1
    return {"feature": column, "op": "in", "levels": sorted(levels[:cut])}


def condition_mask(features: pd.DataFrame, condition: dict) -> np.ndarray:
    values = features[condition["feature"]]
    if condition["op"] == "in":
        return values.astype(str).isin(condition["levels"]).to_numpy()
    numbers = values.to_numpy(dtype=float)
    return numbers > condition["threshold"] if condition["op"] == ">" else numbers <= condition["threshold"]


def describe_condition(condition: dict) -> str:
    if condition["op"] == "in":
        levels = condition["levels"]
        return f"{condition['feature']} is {levels[0]}" if len(levels) == 1 else \
            f"{condition['feature']} is one of {', '.join(levels)}"
    return f"{condition['feature']} {condition['op']} {condition['threshold']:.4g}"


def class_shares(labels: np.ndarray, n_classes: int) -> np.ndarray:
    return np.bincount(np.asarray(labels, dtype=int), minlength=n_classes)[:n_classes] / max(len(labels), 1)


def spread_labels(n_slots: int, n_classes: int, rng: np.random.Generator) -> list[int]:
    """Class labels for n_slots leaves, bins or prototypes: every class at least once, the rest at random."""
    labels = list(range(n_classes)) + rng.integers(n_classes, size=max(n_slots - n_classes, 0)).tolist()
    return [int(label) for label in rng.permutation(labels)]


def single_column_fit(features: pd.DataFrame, labels: np.ndarray, column: str, *, regression: bool) -> float:
    """How much of the labels one column explains through 16 quantile bins (or its levels): accuracy of the bins'
    majority class, or R^2 of the bins' means. A cheap stand-in for the critic's one-column tree."""
    values = features[column]
    if pd.api.types.is_numeric_dtype(values):
        bins = pd.qcut(values.rank(method="first"), q=min(16, len(values)), labels=False)
    else:
        bins = values.astype(str)
    table = pd.DataFrame({"bin": np.asarray(bins), "label": labels})
    if regression:
        fitted = table.groupby("bin")["label"].transform("mean")
        spread = float(np.var(labels)) or 1.0
        return 1.0 - float(np.mean((table["label"] - fitted) ** 2)) / spread
    return float(table.groupby("bin")["label"].agg(lambda x: x.value_counts().iloc[0]).sum()) / len(table)
