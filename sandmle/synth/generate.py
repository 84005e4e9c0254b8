"""Data generation: clean features sampled to the DNA's shapes (never its rows) and carried onto each domain column's
declared range, so values read as the domain's; noise comes later, in noise.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.seeds.dna import QUANTILES
from sandmle.synth.columns import level_names
from sandmle.synth.domain_library.readings import Reading
from sandmle.synth.images import sample_images
from sandmle.synth.texts import sample_text_column


def _inverse_cdf(quantiles: list[float], u: np.ndarray) -> np.ndarray:
    q = np.asarray(quantiles, dtype=float)
    low, high = q[0] - (q[1] - q[0]), q[-1] + (q[-1] - q[-2])
    grid = np.concatenate([[0.0], QUANTILES, [1.0]])
    return np.interp(u, grid, np.concatenate([[low], q, [high]]))


def carry_shape(values: np.ndarray, quantiles: list[float], reading: Reading) -> np.ndarray:
    """Carry seed-unit values onto a domain column: the affine map that sends the seed's 5th-95th percentile onto the
    column's typical range keeps quantile spacing, skew, modes and gaps (the DNA), clipped to the plausible band and
    rounded where the column is whole. Monotone, so a rule on the result reads in the column's own units."""
    seed_low, seed_high = quantiles[QUANTILES.index(0.05)], quantiles[QUANTILES.index(0.95)]
    if seed_high <= seed_low:  # a column nearly constant within 5-95%: its 1st-99th percentile carries the spread
        seed_low, seed_high = quantiles[0], quantiles[-1]
    low, high = reading.typical
    if seed_high <= seed_low:
        mapped = np.full(len(values), (low + high) / 2)
    else:
        mapped = low + (np.asarray(values, dtype=float) - seed_low) * ((high - low) / (seed_high - seed_low))
    band_low, band_high = reading.band()
    mapped = np.clip(mapped, band_low, band_high)
    if reading.whole:
        return np.clip(np.round(mapped), np.ceil(band_low), np.floor(band_high))
    # readings carry the precision an instrument would: about three significant digits over the typical width
    rounded = np.round(mapped, int(np.clip(3 - np.ceil(np.log10(high - low)), 0, 6)))
    return np.clip(rounded, band_low, band_high)


def _coded_levels(n_levels: int, reading: Reading) -> np.ndarray:
    """A categorical seed column shown in a numeric domain column: evenly spaced readings within its typical range."""
    low, high = reading.typical
    points = low + (np.arange(n_levels) + 0.5) / n_levels * (high - low)
    return np.round(points) if reading.whole else np.round(points, 3)


def _level_names(count: int, declared: list[str]) -> list[str]:
    """The domain's level names, extended with numbered ones where the seed has more levels than the domain names."""
    names = list(declared[:count])
    return names + [f"other_{k}" for k in range(1, count - len(names) + 1)] if names else level_names(count)


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
            if "typical" in named:
                values = carry_shape(values, feature.quantiles, Reading.from_dict(named))
            else:  # a spec written before columns declared ranges keeps the seed's own scale
                if feature.integer:
                    values = np.round(values)
                if feature.bounded:
                    values = np.clip(values, 0, None)
            columns[named["name"]] = values
        elif feature.kind == "categorical":
            shares = np.asarray(feature.category_shares or [1.0])
            if "typical" in named:
                levels = _coded_levels(len(shares), Reading.from_dict(named))
            else:
                levels = np.asarray(_level_names(len(shares), named.get("levels") or []), dtype=object)
            columns[named["name"]] = levels[rng.choice(len(shares), size=n_rows, p=shares / shares.sum())]
        else:
            columns[named["name"]], notes = sample_text_column(choice, named["name"], n_rows=n_rows,
                                                               mean_length=feature.mean_length, rng=rng)
            for key, value in notes.items():
                planted.setdefault(key, {}).update(value)
    frame = pd.DataFrame(columns)
    frame.attrs.update(planted)
    return frame

