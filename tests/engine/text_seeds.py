"""CSV text seeds made in the tests: short product reviews with a sentiment label, and physio notes with a cost."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

GOOD = ["great", "sturdy", "quiet", "fast", "lovely", "reliable"]
BAD = ["broken", "noisy", "slow", "flimsy", "late", "leaking"]
ITEMS = ["kettle", "blender", "lamp", "fan", "toaster", "heater"]


def write_review_csv(path: Path, *, rows: int = 80, seed: int = 0) -> Path:
    """Reviews of about 30 words, a helpful-votes count and a positive/negative label."""
    rng = np.random.default_rng(seed)
    records = []
    for _ in range(rows):
        positive = bool(rng.random() < 0.5)
        first, second = rng.choice(GOOD if positive else BAD, size=2)
        records.append({
            "review": f"The {rng.choice(ITEMS)} arrived {rng.integers(1, 9)} days ago and feels {first}, honestly "
                      f"{second} overall. I used it every morning for a week in a small kitchen and would call it {second}.",
            "helpful_votes": int(rng.poisson(3)),
            "label": "positive" if positive else "negative",
        })
    pd.DataFrame(records).to_csv(path, index=False)
    return Path(path)


def write_note_regression_csv(path: Path, *, rows: int = 60, seed: int = 0) -> Path:
    """Free-text physio notes and a continuous cost to predict."""
    rng = np.random.default_rng(seed)
    records = [{"note": f"Visit {index}: walked {rng.integers(1, 9)} km, reported {rng.choice(['mild', 'sharp', 'no'])} pain "
                        f"and wants to keep the same exercise plan next week.",
                "cost": round(float(rng.normal(100, 30)), 2)} for index in range(rows)]
    pd.DataFrame(records).to_csv(path, index=False)
    return Path(path)
