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


def column_ranges(spec: dict, frame: pd.DataFrame) -> list[dict]:
    """Each named column of a spec beside what its public rows show: unit, declared typical range and bounds (or
    levels), observed range (or levels seen) and the share of implausible readings. For a reviewer's table."""
    named = spec.get("domain", {}).get("features", []) + spec.get("noise", {}).get("distractor_columns", [])
    rows = []
    for column in named:
        name = column["name"]
        if name not in frame.columns or column.get("unit") == "text":
            continue
        values = frame[name].dropna()
        row = {"name": name, "unit": column.get("unit", ""), "declared": "", "observed": "", "implausible": None}
        if "typical" in column:
            reading = Reading.from_dict(column)
            numbers = pd.to_numeric(values, errors="coerce").dropna()
            bounds = "–".join("" if math.isinf(b) else f"{b:g}" for b in reading.bounds)
            row["declared"] = f"{reading.typical[0]:g} to {reading.typical[1]:g} (bounds {bounds})" + (
                ", whole" if reading.whole else "")
            row["observed"] = f"{numbers.min():g} to {numbers.max():g}" if len(numbers) else ""
            row["implausible"] = implausible_shares(frame[[name]], {name: reading}).get(name)
        else:
            row["declared"] = ", ".join(column.get("levels", []))
            row["observed"] = ", ".join(sorted(values.astype(str).str.strip().str.lower().unique())[:10])
        rows.append(row)
    return rows
