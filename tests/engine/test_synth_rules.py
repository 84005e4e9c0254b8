"""Hidden-rule families: serialisable, re-executable, using a subset of the columns, every class in use, in words."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sandmle.synth import rules
from sandmle.synth.rules import RuleDesignError
from sandmle.synth.rules.base import single_column_fit

TABULAR = rules.CLASSIFICATION_FAMILIES + rules.REGRESSION_FAMILIES
NUMERIC_ONLY = ("linear_logit", "piecewise_bands", "modular_steps", "nearest_prototype", "sparse_additive",
                "interaction_products")


def mixed_frame(n_rows: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "pressure": rng.normal(1013, 8, n_rows), "flow": rng.lognormal(2, 0.5, n_rows),
        "cycles": rng.poisson(12, n_rows).astype(float), "load": rng.uniform(0, 100, n_rows),
        "angle": rng.normal(0, 30, n_rows),
        "grade": rng.choice(["level_a", "level_b", "level_c"], size=n_rows, p=[0.5, 0.3, 0.2]).astype(object),
    })


def test_registry_has_the_required_families():
    assert len(rules.CLASSIFICATION_FAMILIES) >= 6 and len(rules.REGRESSION_FAMILIES) >= 3
    assert {"threshold_tree", "linear_logit", "rule_list", "piecewise_bands", "modular_steps",
            "nearest_prototype"} <= set(rules.CLASSIFICATION_FAMILIES)
    with pytest.raises(ValueError, match="unknown rule family 'nope'"):
        rules.design_rule("nope", mixed_frame(), n_classes=2, rng=np.random.default_rng(0))


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("family", TABULAR)
def test_family_is_serialisable_reproducible_partial_balanced_and_described(family, n_classes):
    frame = mixed_frame()
    names = [f"class_{k}" for k in range(n_classes)]
    for seed in range(3):
        rule = rules.design_rule(family, frame, n_classes=n_classes, rng=np.random.default_rng(seed))
        again = json.loads(json.dumps(rule))
        labels = rules.apply_rule(again, frame)
        assert np.array_equal(labels, rules.apply_rule(rule, frame))
        assert rule["family"] == family
        assert set(rule["features"]) < set(frame.columns)  # the rest are distractors
        regression = family in rules.REGRESSION_FAMILIES
        assert all(single_column_fit(frame, labels, c, regression=regression) <= 0.8 for c in rule["features"])
        described = rules.describe_rule(again, label_names=names)
        assert described and all(column in described for column in rule["features"])
        if regression:
            assert labels.dtype.kind == "f" and np.std(labels) > 1.0
        else:
            shares = np.bincount(labels, minlength=n_classes) / len(labels)
            assert len(shares) == n_classes and shares.min() >= 0.4 / n_classes, shares
            assert all(name in described for name in names)


@pytest.mark.parametrize("family", NUMERIC_ONLY)
def test_numeric_families_never_read_categorical_columns(family):
    frame = mixed_frame()
    for seed in range(4):
        rule = rules.design_rule(family, frame, n_classes=3, rng=np.random.default_rng(seed))
        assert "grade" not in rule["features"]
    only_levels = frame[["grade"]].assign(zone=np.where(frame["load"] > 50, "north", "south"))
    assert family not in rules.usable_families(TABULAR, only_levels)
    with pytest.raises(RuleDesignError):
        rules.get_family(family).design(only_levels, 3, np.random.default_rng(0))


def test_tree_and_rule_list_split_on_categorical_levels():
    frame = mixed_frame()[["grade", "load"]].assign(zone=lambda f: np.where(f["load"] > 50, "north", "south"))
    frame = frame.drop(columns="load").assign(noise=np.random.default_rng(1).normal(size=len(frame)))
    for family in ("threshold_tree", "rule_list"):
        uses_levels = False
        for seed in range(6):
            rule = rules.design_rule(family, frame, n_classes=2, rng=np.random.default_rng(seed))
            text = json.dumps(rule)
            uses_levels |= '"op": "in"' in text
            assert len(np.unique(rules.apply_rule(rule, frame))) == 2
        assert uses_levels, family


def test_threshold_tree_is_nested():
    rule = rules.design_rule("threshold_tree", mixed_frame(), n_classes=3, rng=np.random.default_rng(2))

    def depth(node: dict) -> int:
        return 0 if "label" in node else 1 + max(depth(node["then"]), depth(node["else"]))

    assert 2 <= depth(rule["tree"]) <= 3


def test_rule_list_first_matching_clause_wins():
    frame = pd.DataFrame({"a": [1.0, 5.0, 5.0, 0.0], "b": ["x", "x", "y", "y"]})
    rule = {"family": "rule_list", "features": ["a", "b"], "default": 2, "clauses": [
        {"when": [{"feature": "a", "op": ">", "threshold": 3.0}], "label": 0},
        {"when": [{"feature": "b", "op": "in", "levels": ["x"]}], "label": 1}]}
    assert rules.apply_rule(rule, frame).tolist() == [1, 0, 0, 2]


def test_piecewise_bands_are_not_monotone():
    for seed in range(5):
        rule = rules.design_rule("piecewise_bands", mixed_frame(), n_classes=3, rng=np.random.default_rng(seed))
        labels = rule["labels"]
        assert all(a != b for a, b in zip(labels, labels[1:]))  # neighbouring bands differ ...
        assert len(set(labels)) == 3 < len(labels)  # ... and a class comes back: no monotone order


def test_modular_steps_repeat_with_the_period():
    frame = mixed_frame()
    rule = rules.design_rule("modular_steps", frame, n_classes=3, rng=np.random.default_rng(0))
    shifted = frame.copy()
    first = rule["steps"][0]
    shifted[first["feature"]] = shifted[first["feature"]] + rule["n_classes"] * first["width"]
    same = rules.apply_rule(rule, frame) == rules.apply_rule(rule, shifted)
    assert same.mean() > 0.99  # float rounding may move a row sitting exactly on a step edge


def test_nearest_prototype_labels_its_own_prototypes():
    frame = mixed_frame()
    rule = rules.design_rule("nearest_prototype", frame, n_classes=3, rng=np.random.default_rng(0))
    points = pd.DataFrame([{c: rule["centre"][c] + z * rule["scale"][c] for c, z in zip(rule["features"], row)}
                           for row in rule["prototypes"]])
    assert rules.apply_rule(rule, points).tolist() == rule["labels"]


def test_hinge_regimes_switch_on_a_level_and_bend():
    frame = mixed_frame()
    designs = (rules.design_rule("hinge_regimes", frame, n_classes=0, rng=np.random.default_rng(seed)) for seed in range(20))
    rule = next(r for r in designs if r["regime"]["op"] == "in")
    values = rules.apply_rule(rule, frame)
    inside = frame["grade"].isin(rule["regime"]["levels"]).to_numpy()
    assert inside.any() and (~inside).any()
    assert abs(values[inside].mean() - values[~inside].mean()) > 0.1
