"""Plausibility of a task's columns: the share of each numeric column's readings outside the band its declared range
allows (or not whole where the column is whole). The critic rejects a task whose columns leave that band beyond the
noise recipe's stated glitch share; the studio and bench/synth report the same figures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sandmle.synth.domain_library.readings import Reading


def declared_readings(columns: list[dict]) -> dict[str, Reading]:
    """The declared range of every named numeric column of a spec (features and distractors) that has one."""
    return {column["name"]: Reading.from_dict(column) for column in columns if "typical" in column}


def implausible_shares(frame: pd.DataFrame, readings: dict[str, Reading]) -> dict[str, float]:
    """For each declared column of `frame`: the share of its present values that no real reading would show."""
    shares = {}
    for name, reading in readings.items():
        if name not in frame.columns:
            continue
        values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        if not len(values):
            continue
        low, high = reading.band()
        outside = (values < low) | (values > high)
        if reading.whole:
            outside |= values != np.round(values)
        shares[name] = float(outside.mean())
    return shares


def allowed_share(glitch_share: float, n_rows: int) -> float:
    """The stated glitch share plus sampling slack (three binomial standard deviations and two rows)."""
    n = max(n_rows, 1)
    return glitch_share + 3 * math.sqrt(glitch_share * (1 - glitch_share) / n) + 2 / n
