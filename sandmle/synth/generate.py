"""Data generation: clean features sampled to the DNA's shapes (never its rows); noise comes later, in noise.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.dna import QUANTILES
from sandmle.synth.columns import level_names


def _inverse_cdf(quantiles: list[float], u: np.ndarray) -> np.ndarray:
    q = np.asarray(quantiles, dtype=float)
    low, high = q[0] - (q[1] - q[0]), q[-1] + (q[-1] - q[-2])
    grid = np.concatenate([[0.0], QUANTILES, [1.0]])
    return np.interp(u, grid, np.concatenate([[low], q, [high]]))


def sample_features(dna, choice, *, n_rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Clean features: numeric by the DNA quantiles (integer/bounded kept), categorical by the DNA shares, pixels as grids."""
    if dna.modality == "image":
        side = dna.image_shape[0] if dna.image_shape else 8
        top = max(dna.features[0].quantiles[-1], 1.0) if dna.features and dna.features[0].quantiles else 16.0
        base = rng.uniform(0, 0.35, size=(n_rows, 1, 1)) * top
        images = base + rng.normal(0, 0.08 * top, size=(n_rows, side, side))
        half = side // 2
        for row in range(n_rows):  # one or two bright quadrants per picture
            for _ in range(int(rng.integers(1, 3))):
                r, c = int(rng.integers(2)) * half, int(rng.integers(2)) * half
                images[row, r:r + half, c:c + half] += rng.uniform(0.3, 0.65) * top
        pixels = np.clip(np.round(images), 0, top).reshape(n_rows, -1)
        return pd.DataFrame(pixels, columns=[f"px_{i}" for i in range(pixels.shape[1])])
    columns = {}
    for feature, named in zip([f for f in dna.features if f.kind != "pixel"], choice.features):
        if feature.kind == "numeric" and feature.quantiles:
            values = _inverse_cdf(feature.quantiles, rng.uniform(size=n_rows))
            if feature.integer:
                values = np.round(values)
            if feature.bounded:
                values = np.clip(values, 0, None)
            columns[named["name"]] = values
        elif feature.kind == "categorical":
            shares = np.asarray(feature.category_shares or [1.0])
            levels = np.asarray(named.get("levels") or level_names(len(shares)), dtype=object)
            columns[named["name"]] = levels[rng.choice(len(shares), size=n_rows, p=shares / shares.sum())]
        else:  # text columns of a seed become a numeric stand-in until text rules exist
            columns[named["name"]] = rng.normal(size=n_rows)
    return pd.DataFrame(columns)

