"""Hidden-rule families for tabular regression: sparse additive shapes, a hinge with a regime switch, and products of
features (with an optional periodic term).

All read numeric columns, standardised; the hinge family's regime switch may also test a categorical column's levels.
Targets sit around 50 with a spread of tens, whatever the units of the features.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.synth.columns import columns_of_kind
from sandmle.synth.rules.base import (RuleFamily, condition_mask, describe_condition, design_condition, minus, number,
                                      pick_features, standard_scale, standardise, where_standardised)

SHAPES = {"linear": lambda z: z, "square": lambda z: z ** 2, "sine": lambda z: np.sin(2 * z)}


def _weight(rng: np.random.Generator, low: float, high: float) -> float:
    return number(round(float(np.sign(rng.normal()) * rng.uniform(low, high)), 3))


# -- sparse additive --------------------------------------------------------------------------------------------------

def _design_sparse_additive(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng)
    centre, scale = standard_scale(features, used)
    terms = [{"feature": c, "kind": str(rng.choice(list(SHAPES))), "weight": _weight(rng, 3, 15)} for c in used]
    return {"family": "sparse_additive", "features": used, "centre": centre, "scale": scale, "terms": terms,
            "intercept": 50.0}


def _apply_sparse_additive(rule: dict, features: pd.DataFrame) -> np.ndarray:
    z = standardise(features, rule["features"], rule["centre"], rule["scale"])
    value = np.full(len(features), float(rule["intercept"]))
    for index, term in enumerate(rule["terms"]):
        value = value + term["weight"] * SHAPES[term["kind"]](z[:, index])
    return value


def _describe_sparse_additive(rule: dict, label_names: list[str]) -> str:
    names = {"linear": "z({})", "square": "z({})^2", "sine": "sin(2 z({}))"}
    parts = [f"{t['weight']:+.3g} {names[t['kind']].format(t['feature'])}" for t in rule["terms"]]
    return (f"target = {rule['intercept']:.3g} " + " ".join(parts) + where_standardised(rule))


# -- hinge with a regime switch ---------------------------------------------------------------------------------------

def _design_hinge_regimes(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng, low=1, high=3)
    unused = [c for c in features.columns if c not in used]
    spare = len(unused) >= 2  # a switch column outside the inputs must still leave one distractor
    categorical = [c for c in columns_of_kind(features, "categorical") if c in unused and features[c].nunique() > 1]
    numeric = [c for c in columns_of_kind(features, "numeric") if c in unused and spare] or used
    switch = str(rng.choice(categorical)) if spare and categorical and rng.random() < 0.7 else str(rng.choice(numeric))
    regime = design_condition(features[switch], float(rng.uniform(0.3, 0.7)), rng)
    centre, scale = standard_scale(features, used)
    hinge_feature = str(rng.choice(used))
    knot = np.quantile(standardise(features, [hinge_feature], centre, scale), float(rng.uniform(0.3, 0.7)))
    regimes = [{"intercept": number(round(50 + rng.normal() * 10, 3)),
                "slopes": [_weight(rng, 2, 12) for _ in used]} for _ in range(2)]
    return {"family": "hinge_regimes", "features": sorted(set(used) | {switch}), "inputs": used, "centre": centre,
            "scale": scale, "regime": regime, "when_true": regimes[0], "when_false": regimes[1],
            "hinge": {"feature": hinge_feature, "knot": number(knot), "weight": _weight(rng, 8, 20)}}


def _apply_hinge_regimes(rule: dict, features: pd.DataFrame) -> np.ndarray:
    z = standardise(features, rule["inputs"], rule["centre"], rule["scale"])
    switched = condition_mask(features, rule["regime"])
    value = np.empty(len(features))
    for regime, rows in ((rule["when_true"], switched), (rule["when_false"], ~switched)):
        value[rows] = regime["intercept"] + z[rows] @ np.asarray(regime["slopes"], dtype=float)
    hinge = rule["hinge"]
    bent = z[:, rule["inputs"].index(hinge["feature"])] - hinge["knot"]
    return value + hinge["weight"] * np.maximum(bent, 0.0)


def _describe_hinge_regimes(rule: dict, label_names: list[str]) -> str:
    def line(regime: dict) -> str:
        return f"{regime['intercept']:.3g} " + " ".join(f"{s:+.3g} z({c})" for c, s in zip(rule["inputs"], regime["slopes"]))

    hinge = rule["hinge"]
    return (f"Two regimes: when {describe_condition(rule['regime'])}, target = {line(rule['when_true'])}; otherwise "
            f"target = {line(rule['when_false'])}. In both, add {hinge['weight']:+.3g} x max(0, z({hinge['feature']}) "
            f"{minus(hinge['knot'])}) (a hinge)" + where_standardised(rule, "inputs"))


# -- interaction products ---------------------------------------------------------------------------------------------

def _design_interaction_products(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng, low=2, high=4, minimum=2)
    centre, scale = standard_scale(features, used)
    pairs = [sorted(rng.choice(used, size=2, replace=False).tolist()) for _ in range(int(rng.integers(1, 3)))]
    products = [{"features": pair, "weight": _weight(rng, 5, 15)} for pair in {tuple(p): p for p in pairs}.values()]
    periodic = None
    if rng.random() < 0.5:
        periodic = {"feature": str(rng.choice(used)), "frequency": number(round(rng.uniform(1.5, 3.0), 3)),
                    "weight": _weight(rng, 3, 8)}
    return {"family": "interaction_products", "features": used, "centre": centre, "scale": scale, "intercept": 50.0,
            "main": [_weight(rng, 2, 10) for _ in used], "products": products, "periodic": periodic}


def _apply_interaction_products(rule: dict, features: pd.DataFrame) -> np.ndarray:
    z = standardise(features, rule["features"], rule["centre"], rule["scale"])
    value = rule["intercept"] + z @ np.asarray(rule["main"], dtype=float)
    for product in rule["products"]:
        first, second = (rule["features"].index(c) for c in product["features"])
        value = value + product["weight"] * z[:, first] * z[:, second]
    if rule["periodic"]:
        wave = rule["periodic"]
        value = value + wave["weight"] * np.sin(wave["frequency"] * z[:, rule["features"].index(wave["feature"])])
    return value


def _describe_interaction_products(rule: dict, label_names: list[str]) -> str:
    parts = [f"{w:+.3g} z({c})" for c, w in zip(rule["features"], rule["main"])]
    parts += [f"{p['weight']:+.3g} z({p['features'][0]}) z({p['features'][1]})" for p in rule["products"]]
    if rule["periodic"]:
        wave = rule["periodic"]
        parts.append(f"{wave['weight']:+.3g} sin({wave['frequency']:.3g} z({wave['feature']}))")
    return (f"target = {rule['intercept']:.3g} " + " ".join(parts) + " (products of features matter)" + where_standardised(rule))


FAMILIES = {
    family.name: family for family in (
        RuleFamily("sparse_additive", "regression", _design_sparse_additive, _apply_sparse_additive,
                   _describe_sparse_additive),
        RuleFamily("hinge_regimes", "regression", _design_hinge_regimes, _apply_hinge_regimes, _describe_hinge_regimes,
                   feature_kinds=("numeric",), min_features=2),
        RuleFamily("interaction_products", "regression", _design_interaction_products, _apply_interaction_products,
                   _describe_interaction_products, min_features=2),
    )
}
