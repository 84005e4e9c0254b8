"""Data generation: clean features sampled to the DNA's shapes (never its rows); noise comes later, in noise.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.dna import QUANTILES
from sandmle.synth.columns import level_names
from sandmle.synth.images import sample_images
from sandmle.synth.texts import sample_text_column


def _inverse_cdf(quantiles: list[float], u: np.ndarray) -> np.ndarray:
    q = np.asarray(quantiles, dtype=float)
    low, high = q[0] - (q[1] - q[0]), q[-1] + (q[-1] - q[-2])
    grid = np.concatenate([[0.0], QUANTILES, [1.0]])
    return np.interp(u, grid, np.concatenate([[low], q, [high]]))


def sample_features(dna, choice, *, n_rows: int, rng: np.random.Generator, family: str | None = None) -> pd.DataFrame:
    """Clean features: numeric by the DNA quantiles (integer/bounded kept), categorical by the DNA shares, pixels as
    grids planting the pattern of the image rule `family`, text as notes in the domain's vocabulary (what was planted
    is recorded in the frame's attrs for rule design)."""
    if dna.modality == "image":
        side = dna.image_shape[0] if dna.image_shape else 8
        top = max(dna.features[0].quantiles[-1], 1.0) if dna.features and dna.features[0].quantiles else 16.0
        pixels = sample_images(side=side, top=top, n_rows=n_rows, rng=rng, pattern=family)
        return pd.DataFrame(pixels, columns=[f"px_{i}" for i in range(pixels.shape[1])])
    planted = {}
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
        else:
            columns[named["name"]], notes = sample_text_column(choice, named["name"], n_rows=n_rows,
                                                               mean_length=feature.mean_length, rng=rng)
            for key, value in notes.items():
                planted.setdefault(key, {}).update(value)
    frame = pd.DataFrame(columns)
    frame.attrs.update(planted)
    return frame

