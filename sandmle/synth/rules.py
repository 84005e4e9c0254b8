"""Hidden rules: deterministic, serialisable maps from features to clean labels, described in plain words."""

from __future__ import annotations

import numpy as np
import pandas as pd

CLASSIFICATION_FAMILIES = ("linear_logit", "threshold_rules")
REGRESSION_FAMILIES = ("sparse_additive",)
IMAGE_FAMILIES = ("bright_quadrant",)


def _standardise(frame: pd.DataFrame, columns: list[str], centre: dict, scale: dict) -> np.ndarray:
    return np.column_stack([(frame[c].to_numpy(dtype=float) - centre[c]) / scale[c] for c in columns])


def design_rule(family: str, features: pd.DataFrame, *, n_classes: int, rng: np.random.Generator) -> dict:
    """Pick the rule's parameters on clean generated features; the rule uses a subset of the columns."""
    columns = [c for c in features.columns if c != "image"]
    used = sorted(rng.choice(columns, size=min(len(columns), int(rng.integers(2, 5))), replace=False).tolist())
    centre = {c: float(features[c].median()) for c in used}
    scale = {c: float(features[c].std() or 1.0) for c in used}
    if family == "linear_logit":
        weights = rng.normal(size=(len(used), max(n_classes, 2))).round(3)
        interaction = [used[0], used[-1]] if len(used) > 1 else []
        return {"family": family, "features": used, "centre": centre, "scale": scale, "weights": weights.tolist(),
                "interaction": interaction, "interaction_weight": round(float(rng.normal()), 3)}
    if family == "threshold_rules":
        rules = []
        for label in range(max(n_classes, 2) - 1):
            column = used[label % len(used)]
            quantile = float(rng.uniform(0.3, 0.7))
            rules.append({"feature": column, "op": ">" if rng.random() < 0.5 else "<=",
                          "threshold": round(float(features[column].quantile(quantile)), 6), "label": label + 1})
        return {"family": family, "features": used, "rules": rules, "default": 0}
    if family == "sparse_additive":
        terms = [{"feature": c, "kind": str(rng.choice(["linear", "square", "sine"])), "weight": round(float(rng.normal()) * 10, 3)}
                 for c in used]
        return {"family": family, "features": used, "centre": centre, "scale": scale, "terms": terms, "intercept": 50.0}
    if family == "bright_quadrant":
        return {"family": family, "features": ["pixels"], "grid": int(round(np.sqrt(sum(c.startswith("px_") for c in features.columns)))),
                "n_classes": min(n_classes, 4)}  # four quadrants make at most four classes
    raise ValueError(f"unknown rule family {family!r}")


def apply_rule(rule: dict, features: pd.DataFrame) -> np.ndarray:
    """Re-execute the rule: the clean label (class index, or value) of every row."""
    family = rule["family"]
    if family == "linear_logit":
        x = _standardise(features, rule["features"], rule["centre"], rule["scale"])
        logits = x @ np.asarray(rule["weights"])
        if rule["interaction"]:
            a, b = (rule["features"].index(c) for c in rule["interaction"])
            logits[:, 0] += rule["interaction_weight"] * x[:, a] * x[:, b]
        return logits.argmax(axis=1)
    if family == "threshold_rules":
        labels = np.full(len(features), rule["default"])
        for clause in reversed(rule["rules"]):  # first matching clause wins
            values = features[clause["feature"]].to_numpy(dtype=float)
            hit = values > clause["threshold"] if clause["op"] == ">" else values <= clause["threshold"]
            labels[hit] = clause["label"]
        return labels
    if family == "sparse_additive":
        x = _standardise(features, rule["features"], rule["centre"], rule["scale"])
        value = np.full(len(features), rule["intercept"])
        for index, term in enumerate(rule["terms"]):
            shaped = {"linear": x[:, index], "square": x[:, index] ** 2, "sine": np.sin(2 * x[:, index])}[term["kind"]]
            value = value + term["weight"] * shaped
        return value
    if family == "bright_quadrant":
        pixels = features[[c for c in features.columns if c.startswith("px_")]].to_numpy(dtype=float)
        grid = rule["grid"]
        images = pixels.reshape(-1, grid, grid)
        half = grid // 2
        quadrants = np.stack([images[:, :half, :half].mean((1, 2)), images[:, :half, half:].mean((1, 2)),
                              images[:, half:, :half].mean((1, 2)), images[:, half:, half:].mean((1, 2))], axis=1)
        return quadrants.argmax(axis=1) % rule["n_classes"]
    raise ValueError(f"unknown rule family {family!r}")


def describe_rule(rule: dict, *, label_names: list[str]) -> str:
    family = rule["family"]
    if family == "linear_logit":
        text = f"The class with the highest linear score over standardised {', '.join(rule['features'])} wins"
        if rule["interaction"]:
            text += f"; the first class's score also has {rule['interaction_weight']:+.2f} x {rule['interaction'][0]} x {rule['interaction'][1]}"
        return text + "."
    if family == "threshold_rules":
        parts = [f"if {c['feature']} {c['op']} {c['threshold']:.4g} then {label_names[c['label']]}" for c in rule["rules"]]
        return "First matching rule wins: " + "; ".join(parts) + f"; otherwise {label_names[rule['default']]}."
    if family == "sparse_additive":
        parts = [f"{t['weight']:+.2f} x {t['kind']}({t['feature']})" for t in rule["terms"]]
        return f"target = {rule['intercept']:.1f} " + " ".join(parts) + " (features standardised)."
    if family == "bright_quadrant":
        return "The label is the index of the brightest image quadrant (top-left, top-right, bottom-left, bottom-right), modulo the class count."
    return family
