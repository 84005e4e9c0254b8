"""Hidden rules: deterministic, JSON-serialisable maps from features to clean labels, described in plain words.

Each module of this package registers its families in a `FAMILIES` dict of `RuleFamily` records; this registry merges
them, so a new family (or a new modality's module) is added by listing it here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.synth.columns import columns_of_kind
from sandmle.synth.rules import classification, image, regression, text
from sandmle.synth.rules.base import (MAX_SINGLE_COLUMN_FIT, MIN_SHARE_RATIO, RuleDesignError, RuleFamily, class_shares,
                                      single_column_fit)

FAMILIES: dict[str, RuleFamily] = {**classification.FAMILIES, **regression.FAMILIES, **image.FAMILIES, **text.FAMILIES}


def _names(task: str) -> tuple[str, ...]:
    return tuple(name for name, family in FAMILIES.items() if family.task == task)


CLASSIFICATION_FAMILIES = _names("classification")
REGRESSION_FAMILIES = _names("regression")
IMAGE_FAMILIES = _names("image")
TEXT_FAMILIES = _names("text")
TEXT_REGRESSION_FAMILIES = _names("text_regression")
VALUE_TASKS = ("regression", "text_regression")  # families whose rules give values, not classes
DESIGN_TRIES = 12  # fresh designs tried until every class holds a fair share of the preview rows

__all__ = ["CLASSIFICATION_FAMILIES", "FAMILIES", "IMAGE_FAMILIES", "REGRESSION_FAMILIES", "TEXT_FAMILIES",
           "TEXT_REGRESSION_FAMILIES", "RuleDesignError", "RuleFamily", "apply_rule", "describe_rule", "design_rule", "get_family", "usable_families"]


def get_family(name: str) -> RuleFamily:
    if name not in FAMILIES:
        raise ValueError(f"unknown rule family {name!r}; expected one of {', '.join(FAMILIES)}")
    return FAMILIES[name]


def usable_families(names: tuple[str, ...], features: pd.DataFrame) -> tuple[str, ...]:
    """The families among `names` that can build a rule over these features (enough columns of their kinds)."""
    return tuple(name for name in names if get_family(name).accepts(features))


def _strongest_column_fit(rule: dict, features: pd.DataFrame, labels: np.ndarray, regression: bool) -> float:
    tabular = columns_of_kind(features, "numeric", "categorical")  # pixels and prose are never one-column lookups
    return max((single_column_fit(features, labels, c, regression=regression) for c in rule["features"] if c in tabular),
               default=0.0)


def design_rule(family: str, features: pd.DataFrame, *, n_classes: int, rng: np.random.Generator) -> dict:
    """Design a rule on clean preview features. Designs are redrawn until no class is starved of rows and no single
    column explains the labels by itself (the task would be a one-column lookup, which the critic rejects as a leak);
    when no draw passes, the closest one is kept."""
    record = get_family(family)
    regression = record.task in VALUE_TASKS
    n_classes = n_classes if regression else max(n_classes, 2)
    best, best_key = None, None
    for _ in range(DESIGN_TRIES):
        rule = record.design(features, n_classes, rng)
        labels = record.apply(rule, features)
        starved = 0.0
        if not regression:
            shares = class_shares(labels, rule.get("n_classes", n_classes))
            starved = max(MIN_SHARE_RATIO / len(shares) - shares.min(), 0.0)
        fit = _strongest_column_fit(rule, features, labels, regression)
        if not starved and fit <= MAX_SINGLE_COLUMN_FIT:
            return rule
        key = (starved, max(fit - MAX_SINGLE_COLUMN_FIT, 0.0))
        if best_key is None or key < best_key:
            best, best_key = rule, key
    return best


def apply_rule(rule: dict, features: pd.DataFrame) -> np.ndarray:
    """Re-execute the rule: the clean label (class index, or value) of every row."""
    return get_family(rule["family"]).apply(rule, features)


def describe_rule(rule: dict, *, label_names: list[str]) -> str:
    """The rule in plain words for reviewers, with the domain's class names."""
    return get_family(rule["family"]).describe(rule, list(label_names))
