"""Hidden-rule families for images: spatial patterns read from the generated pixel grids (columns px_0 ... px_N)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.synth.columns import PIXEL_PREFIX
from sandmle.synth.rules.base import RuleFamily


def _pixels(features: pd.DataFrame) -> np.ndarray:
    return features[[c for c in features.columns if c.startswith(PIXEL_PREFIX)]].to_numpy(dtype=float)


def _design_bright_quadrant(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    grid = int(round(np.sqrt(_pixels(features).shape[1])))
    return {"family": "bright_quadrant", "features": ["pixels"], "grid": grid,
            "n_classes": min(n_classes, 4)}  # four quadrants make at most four classes


def _apply_bright_quadrant(rule: dict, features: pd.DataFrame) -> np.ndarray:
    grid = rule["grid"]
    images = _pixels(features).reshape(-1, grid, grid)
    half = grid // 2
    quadrants = np.stack([images[:, :half, :half].mean((1, 2)), images[:, :half, half:].mean((1, 2)),
                          images[:, half:, :half].mean((1, 2)), images[:, half:, half:].mean((1, 2))], axis=1)
    return quadrants.argmax(axis=1) % rule["n_classes"]


def _describe_bright_quadrant(rule: dict, label_names: list[str]) -> str:
    return ("The label is the index of the brightest image quadrant (top-left, top-right, bottom-left, bottom-right), "
            "modulo the class count.")


FAMILIES = {
    family.name: family for family in (
        RuleFamily("bright_quadrant", "image", _design_bright_quadrant, _apply_bright_quadrant, _describe_bright_quadrant,
                   feature_kinds=("pixel",), min_features=4),
    )
}
