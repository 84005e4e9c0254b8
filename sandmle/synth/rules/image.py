"""Hidden-rule families for images: spatial patterns read from the generated pixel grids (columns px_0 ... px_N)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import ndimage

from sandmle.synth.columns import PIXEL_PREFIX
from sandmle.synth.rules.base import RuleDesignError, RuleFamily, number
from sandmle.synth.rules.counts import balanced_cuts, band_labels, describe_bands


def _pixels(features: pd.DataFrame) -> np.ndarray:
    return features[[c for c in features.columns if c.startswith(PIXEL_PREFIX)]].to_numpy(dtype=float)


def _images(features: pd.DataFrame, grid: int) -> np.ndarray:
    return _pixels(features).reshape(-1, grid, grid)


def _grid(features: pd.DataFrame) -> int:
    return int(round(np.sqrt(_pixels(features).shape[1])))


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


# --- bar orientation: the direction of the dominant stroke, from the image's structure tensor ----------------------

def stroke_angles(images: np.ndarray) -> np.ndarray:
    """Degrees in [0, 180) of each image's dominant stroke: 0 horizontal, 45 falling (top-left to bottom-right),
    90 vertical, 135 rising. The gradient's structure tensor gives the direction across the stroke; add 90 degrees."""
    gy, gx = np.gradient(images, axis=(1, 2))
    jxx, jyy, jxy = (gx * gx).sum((1, 2)), (gy * gy).sum((1, 2)), (gx * gy).sum((1, 2))
    return np.degrees(0.5 * np.arctan2(2 * jxy, jxx - jyy) + np.pi / 2) % 180.0


def _design_bar_orientation(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    n_classes = min(n_classes, 4)  # finer angle bins are not readable on small grids
    return {"family": "bar_orientation", "features": ["pixels"], "grid": _grid(features), "n_classes": n_classes,
            "offset": number(rng.uniform(0, 180 / n_classes) if rng.random() < 0.5 else 0.0)}


def _apply_bar_orientation(rule: dict, features: pd.DataFrame) -> np.ndarray:
    width = 180.0 / rule["n_classes"]
    angles = (stroke_angles(_images(features, rule["grid"])) - rule["offset"]) % 180.0
    return np.floor((angles + width / 2) / width).astype(int) % rule["n_classes"]


def _angle_words(angle: float) -> str:
    names = {0: "horizontal", 45: "falling diagonal", 90: "vertical", 135: "rising diagonal"}
    nearest = min(names, key=lambda a: min(abs(angle - a), 180 - abs(angle - a)))
    return f"{angle:.0f} deg (near {names[nearest]})"


def _describe_bar_orientation(rule: dict, label_names: list[str]) -> str:
    width = 180.0 / rule["n_classes"]
    centres = [(rule["offset"] + k * width) % 180 for k in range(rule["n_classes"])]
    bands = "; ".join(f"{_angle_words(c)} -> {label_names[k]}" for k, c in enumerate(centres))
    return (f"Each image shows a bright stroke. Its direction, from the pixels' structure tensor (degrees from horizontal, "
            f"rows counted downwards), falls into the nearest of {rule['n_classes']} bands {width:.0f} degrees wide: {bands}.")


# --- blob count: separate bright blobs above a brightness threshold ---------------------------------------------

def blob_counts(images: np.ndarray, threshold: float, min_pixels: int) -> np.ndarray:
    """Connected groups (8-neighbourhood) of at least `min_pixels` pixels brighter than `threshold`, per image."""
    structure = np.ones((3, 3), dtype=int)
    counts = []
    for image in images:
        labelled, _ = ndimage.label(image > threshold, structure=structure)
        counts.append(int((np.bincount(labelled.ravel())[1:] >= min_pixels).sum()))
    return np.asarray(counts)


def _design_blob_count(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    grid = _grid(features)
    threshold = number(0.5 * np.quantile(_pixels(features), 0.999))  # halfway up to the brightest blobs
    cuts = balanced_cuts(blob_counts(_images(features, grid), threshold, 2), min(n_classes, 4))
    if not cuts:
        raise RuleDesignError("the images do not hold varied numbers of blobs")
    return {"family": "blob_count", "features": ["pixels"], "grid": grid, "threshold": threshold, "min_pixels": 2,
            "cuts": cuts, "n_classes": len(cuts) + 1}


def _apply_blob_count(rule: dict, features: pd.DataFrame) -> np.ndarray:
    return band_labels(blob_counts(_images(features, rule["grid"]), rule["threshold"], rule["min_pixels"]), rule["cuts"])


def _describe_blob_count(rule: dict, label_names: list[str]) -> str:
    return (f"Count the separate bright blobs: groups of at least {rule['min_pixels']} touching pixels (diagonals count) "
            f"brighter than {rule['threshold']:g}. Blobs: {describe_bands(rule['cuts'], label_names)}.")


FAMILIES = {
    family.name: family for family in (
        RuleFamily("bright_quadrant", "image", _design_bright_quadrant, _apply_bright_quadrant, _describe_bright_quadrant,
                   feature_kinds=("pixel",), min_features=4),
        RuleFamily("bar_orientation", "image", _design_bar_orientation, _apply_bar_orientation, _describe_bar_orientation,
                   feature_kinds=("pixel",), min_features=36),
        RuleFamily("blob_count", "image", _design_blob_count, _apply_blob_count, _describe_blob_count,
                   feature_kinds=("pixel",), min_features=36),
    )
}
