"""Hidden-rule families for tabular classification: threshold tree, linear-logit with interactions, rule list,
piecewise bands, modular steps and nearest prototype.

The tree and the rule list test numeric thresholds and categorical level sets; the other four read numeric columns
only (they need distances or scores). Each design picks its cut points from quantiles of the preview features so that
every class holds a fair share of the rows.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from sandmle.synth.rules.base import (RuleDesignError, RuleFamily, class_shares, condition_mask, describe_condition,
                                      design_condition, minus, number, pick_features, spread_labels, standard_scale,
                                      standardise, where_standardised)

TREE_KINDS = ("numeric", "categorical")


def _name(label_names: list[str], label: int) -> str:
    return label_names[label] if label < len(label_names) else f"class {label}"


# -- threshold tree ---------------------------------------------------------------------------------------------------

def _design_threshold_tree(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    depth = max(int(rng.integers(2, 4)), int(np.ceil(np.log2(n_classes))))
    used = pick_features(features, rng, kinds=TREE_KINDS, low=2, high=4)
    turn = itertools.count()
    leaves = itertools.count()

    def grow(rows: pd.DataFrame, level: int) -> dict:
        splittable = [c for c in used if rows[c].nunique() > 1]
        if level == depth or len(rows) < 8 or not splittable:
            return {"leaf": next(leaves)}
        column = splittable[next(turn) % len(splittable)]  # cycled so every chosen column gets a split
        condition = design_condition(rows[column], float(rng.uniform(0.35, 0.65)), rng)
        mask = condition_mask(rows, condition)
        return {"if": condition, "then": grow(rows[mask], level + 1), "else": grow(rows[~mask], level + 1)}

    tree = grow(features, 0)
    n_leaves = next(leaves)
    labels = spread_labels(n_leaves, n_classes, rng)
    for _ in range(20):  # sibling leaves with one label would make their split pointless
        if not _equal_siblings(tree, labels):
            break
        labels = spread_labels(n_leaves, n_classes, rng)
    tree = _label_leaves(tree, labels)
    return {"family": "threshold_tree", "features": sorted(_tree_columns(tree)), "tree": tree}


def _equal_siblings(node: dict, labels: list[int]) -> bool:
    if "leaf" in node:
        return False
    then, other = node["then"], node["else"]
    if "leaf" in then and "leaf" in other and labels[then["leaf"]] == labels[other["leaf"]]:
        return True
    return _equal_siblings(then, labels) or _equal_siblings(other, labels)


def _label_leaves(node: dict, labels: list[int]) -> dict:
    if "leaf" in node:
        return {"label": labels[node["leaf"]]}
    return {"if": node["if"], "then": _label_leaves(node["then"], labels), "else": _label_leaves(node["else"], labels)}


def _tree_columns(node: dict) -> set[str]:
    if "label" in node:
        return set()
    return {node["if"]["feature"]} | _tree_columns(node["then"]) | _tree_columns(node["else"])


def _apply_threshold_tree(rule: dict, features: pd.DataFrame) -> np.ndarray:
    labels = np.zeros(len(features), dtype=int)

    def walk(node: dict, reach: np.ndarray) -> None:
        if "label" in node:
            labels[reach] = node["label"]
            return
        passed = condition_mask(features, node["if"])
        walk(node["then"], reach & passed)
        walk(node["else"], reach & ~passed)

    walk(rule["tree"], np.ones(len(features), dtype=bool))
    return labels


def _describe_threshold_tree(rule: dict, label_names: list[str]) -> str:
    lines = []

    def render(node: dict, indent: str) -> None:
        if "label" in node:
            lines.append(f"{indent}-> {_name(label_names, node['label'])}")
            return
        lines.append(f"{indent}if {describe_condition(node['if'])}:")
        render(node["then"], indent + "    ")
        lines.append(f"{indent}otherwise:")
        render(node["else"], indent + "    ")

    render(rule["tree"], "  ")
    return "A decision tree gives the class:\n" + "\n".join(lines)


# -- linear logit with interactions -----------------------------------------------------------------------------------

def _design_linear_logit(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng)
    centre, scale = standard_scale(features, used)
    interactions = []
    if len(used) > 1:
        first, second = sorted(rng.choice(len(used), size=2, replace=False).tolist())
        interactions.append({"features": [used[first], used[second]], "class": int(rng.integers(n_classes)),
                             "weight": number(np.sign(rng.normal()) * rng.uniform(0.8, 2.0))})
    rule = {"family": "linear_logit", "features": used, "centre": centre, "scale": scale,
            "weights": np.round(rng.normal(size=(len(used), n_classes)), 3).tolist(),
            "bias": [0.0] * n_classes, "interactions": interactions}
    for _ in range(40):  # move the biases until no class is starved of rows
        shares = class_shares(_apply_linear_logit(rule, features), n_classes)
        if shares.min() >= 0.7 / n_classes:
            break
        rule["bias"] = [number(round(b - 0.5 * np.log((s + 0.01) * n_classes), 3)) for b, s in zip(rule["bias"], shares)]
    return rule


def _apply_linear_logit(rule: dict, features: pd.DataFrame) -> np.ndarray:
    z = standardise(features, rule["features"], rule["centre"], rule["scale"])
    logits = z @ np.asarray(rule["weights"], dtype=float).reshape(len(rule["features"]), -1) + np.asarray(rule["bias"])
    for term in rule["interactions"]:
        first, second = (rule["features"].index(c) for c in term["features"])
        logits[:, term["class"]] += term["weight"] * z[:, first] * z[:, second]
    return logits.argmax(axis=1)


def _describe_linear_logit(rule: dict, label_names: list[str]) -> str:
    scores = []
    for label in range(len(rule["bias"])):
        terms = [f"{rule['bias'][label]:+.3g}"]
        terms += [f"{row[label]:+.3g} z({c})" for c, row in zip(rule["features"], rule["weights"])]
        terms += [f"{t['weight']:+.3g} z({t['features'][0]}) z({t['features'][1]})" for t in rule["interactions"]
                  if t["class"] == label]
        scores.append(f"{_name(label_names, label)}: {' '.join(terms)}")
    return ("Each class has a linear score over standardised features (with an interaction term); the highest score "
            "wins. Scores: " + "; ".join(scores) + where_standardised(rule))


# -- rule list --------------------------------------------------------------------------------------------------------

def _design_rule_list(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng, kinds=TREE_KINDS, low=2, high=4)
    n_clauses = max(n_classes - 1, 2) + int(rng.integers(0, 2))
    labels = spread_labels(n_clauses + 1, n_classes, rng)  # the last one is the default
    remaining = features
    clauses = []
    for index in range(n_clauses):
        target = 1.0 / (n_clauses + 1 - index)  # of the rows no earlier clause took: equal shares in the end
        columns = [c for c in used if remaining[c].nunique() > 1]
        if not columns:
            break
        if len(columns) > 1 and rng.random() < 0.5:  # a conjunction of two tests
            first, second = rng.choice(columns, size=2, replace=False).tolist()
            outer = design_condition(remaining[first], float(np.sqrt(target)), rng)
            passed = remaining[condition_mask(remaining, outer)]
            reached = len(passed) / max(len(remaining), 1)
            if passed[second].nunique() > 1 and reached > 0:
                when = [outer, design_condition(passed[second], min(target / reached, 0.95), rng)]
            else:
                when = [outer]
        else:
            when = [design_condition(remaining[str(rng.choice(columns))], target, rng)]
        clauses.append({"when": when, "label": labels[index]})
        remaining = remaining[~_clause_mask(remaining, when)]
    columns = sorted({test["feature"] for clause in clauses for test in clause["when"]})
    return {"family": "rule_list", "features": columns, "clauses": clauses, "default": labels[-1]}


def _clause_mask(features: pd.DataFrame, when: list[dict]) -> np.ndarray:
    mask = np.ones(len(features), dtype=bool)
    for test in when:
        mask &= condition_mask(features, test)
    return mask


def _apply_rule_list(rule: dict, features: pd.DataFrame) -> np.ndarray:
    labels = np.full(len(features), rule["default"], dtype=int)
    for clause in reversed(rule["clauses"]):  # later writes win, so the first matching clause has the last word
        labels[_clause_mask(features, clause["when"])] = clause["label"]
    return labels


def _describe_rule_list(rule: dict, label_names: list[str]) -> str:
    parts = [f"if {' and '.join(describe_condition(t) for t in clause['when'])} then {_name(label_names, clause['label'])}"
             for clause in rule["clauses"]]
    return "First matching rule wins: " + "; ".join(parts) + f"; otherwise {_name(label_names, rule['default'])}."


# -- piecewise bands (non-monotone) -----------------------------------------------------------------------------------

def _non_monotone_labels(n_bins: int, n_classes: int, rng: np.random.Generator) -> list[int]:
    """Every class once, then classes seen before again, never twice in a row: a class comes back (a U or a band)."""
    labels = [int(label) for label in rng.permutation(n_classes)]
    while len(labels) < n_bins:
        earlier = [label for label in labels[:-1] if label != labels[-1]]
        labels.append(int(rng.choice(earlier)))
    return labels


def _design_piecewise_bands(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng, low=2, high=2)
    centre, scale = standard_scale(features, used)
    weights = [1.0] + [number(np.sign(rng.normal()) * rng.uniform(0.6, 1.2)) for _ in used[1:]]
    score = standardise(features, used, centre, scale) @ np.asarray(weights)
    n_bins = n_classes + int(rng.integers(1, 3))
    edges = [number(e) for e in np.quantile(score, np.arange(1, n_bins) / n_bins)]
    return {"family": "piecewise_bands", "features": used, "centre": centre, "scale": scale, "weights": weights,
            "edges": edges, "labels": _non_monotone_labels(n_bins, n_classes, rng)}


def _apply_piecewise_bands(rule: dict, features: pd.DataFrame) -> np.ndarray:
    score = standardise(features, rule["features"], rule["centre"], rule["scale"]) @ np.asarray(rule["weights"])
    return np.asarray(rule["labels"], dtype=int)[np.searchsorted(rule["edges"], score, side="left")]


def _describe_piecewise_bands(rule: dict, label_names: list[str]) -> str:
    score = " ".join(f"{w:+.3g} z({c})" for c, w in zip(rule["features"], rule["weights"]))
    bounds = [-np.inf, *rule["edges"], np.inf]
    bands = [f"{low:.4g} < s <= {high:.4g} -> {_name(label_names, label)}"
             for low, high, label in zip(bounds[:-1], bounds[1:], rule["labels"])]
    return (f"Let s = {score}. The class is set by the band s falls in, and a class can come back in a later band "
            f"(not monotone): " + "; ".join(bands) + where_standardised(rule))


# -- modular steps (periodic) -----------------------------------------------------------------------------------------

def _design_modular_steps(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    candidates = [c for c in pick_features(features, rng, low=4, high=6) if features[c].nunique() >= 3 * n_classes]
    if not candidates:
        raise RuleDesignError(f"needs a numeric column with at least {3 * n_classes} distinct values")
    used = candidates[:2]  # a second, coarser step keeps one column from giving the class away
    steps = []
    for index, column in enumerate(used):
        low, high = np.quantile(features[column].to_numpy(dtype=float), [0.02, 0.98])
        segments = int(rng.integers(n_classes + 1, 2 * n_classes + 2)) if index == 0 else 2
        steps.append({"feature": column, "origin": number(low), "width": number((high - low) / segments or 1.0)})
    return {"family": "modular_steps", "features": sorted(used), "steps": steps, "n_classes": n_classes,
            "classes": [int(c) for c in rng.permutation(n_classes)]}


def _apply_modular_steps(rule: dict, features: pd.DataFrame) -> np.ndarray:
    total = np.zeros(len(features), dtype=int)
    for step in rule["steps"]:
        total += np.floor((features[step["feature"]].to_numpy(dtype=float) - step["origin"]) / step["width"]).astype(int)
    return np.asarray(rule["classes"], dtype=int)[np.mod(total, rule["n_classes"])]


def _describe_modular_steps(rule: dict, label_names: list[str]) -> str:
    counts = [f"n_{s['feature']} = floor(({s['feature']} {minus(s['origin'])}) / {s['width']:.4g})" for s in rule["steps"]]
    total = " + ".join(f"n_{s['feature']}" for s in rule["steps"])
    mapping = ", ".join(f"{r} -> {_name(label_names, c)}" for r, c in enumerate(rule["classes"]))
    return (f"Periodic steps: {'; '.join(counts)}. The class repeats with the remainder of ({total}) divided by "
            f"{rule['n_classes']}: {mapping}.")


# -- nearest prototype ------------------------------------------------------------------------------------------------

def _design_nearest_prototype(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    used = pick_features(features, rng, low=2, high=4)
    centre, scale = standard_scale(features, used)
    z = standardise(features, used, centre, scale)
    n_prototypes = n_classes + int(rng.integers(0, n_classes + 1))
    centres = z[[int(rng.integers(len(z)))]]
    while len(centres) < n_prototypes:  # k-means++ seeding spreads the prototypes over the data
        distance = ((z[:, None, :] - centres[None]) ** 2).sum(-1).min(1)
        centres = np.vstack([centres, z[int(rng.choice(len(z), p=distance / distance.sum()))]])
    for _ in range(5):  # a few k-means steps even out the regions
        nearest = ((z[:, None, :] - centres[None]) ** 2).sum(-1).argmin(1)
        centres = np.stack([z[nearest == k].mean(0) if (nearest == k).any() else centres[k] for k in range(len(centres))])
    return {"family": "nearest_prototype", "features": used, "centre": centre, "scale": scale,
            "prototypes": [[number(round(v, 3)) for v in row] for row in centres],
            "labels": spread_labels(n_prototypes, n_classes, rng)}


def _apply_nearest_prototype(rule: dict, features: pd.DataFrame) -> np.ndarray:
    z = standardise(features, rule["features"], rule["centre"], rule["scale"])
    prototypes = np.asarray(rule["prototypes"], dtype=float)
    nearest = ((z[:, None, :] - prototypes[None]) ** 2).sum(-1).argmin(1)
    return np.asarray(rule["labels"], dtype=int)[nearest]


def _describe_nearest_prototype(rule: dict, label_names: list[str]) -> str:
    points = ["(" + ", ".join(f"z({c})={v:.3g}" for c, v in zip(rule["features"], row)) + f") -> {_name(label_names, label)}"
              for row, label in zip(rule["prototypes"], rule["labels"])]
    return ("Each row takes the class of the nearest prototype (Euclidean distance over standardised features): "
            + "; ".join(points) + where_standardised(rule))


FAMILIES = {
    family.name: family for family in (
        RuleFamily("threshold_tree", "classification", _design_threshold_tree, _apply_threshold_tree,
                   _describe_threshold_tree, feature_kinds=TREE_KINDS, min_features=2),
        RuleFamily("linear_logit", "classification", _design_linear_logit, _apply_linear_logit, _describe_linear_logit),
        RuleFamily("rule_list", "classification", _design_rule_list, _apply_rule_list, _describe_rule_list,
                   feature_kinds=TREE_KINDS, min_features=2),
        RuleFamily("piecewise_bands", "classification", _design_piecewise_bands, _apply_piecewise_bands,
                   _describe_piecewise_bands),
        RuleFamily("modular_steps", "classification", _design_modular_steps, _apply_modular_steps, _describe_modular_steps),
        RuleFamily("nearest_prototype", "classification", _design_nearest_prototype, _apply_nearest_prototype,
                   _describe_nearest_prototype, min_features=2),
    )
}
