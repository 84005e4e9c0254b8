"""Bands over integer counts (words of a lexicon, blobs in an image): the cut points that split them most evenly."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from sandmle.synth.rules.base import MIN_SHARE_RATIO, class_shares, number


def balanced_cuts(counts: np.ndarray, n_classes: int) -> list[float]:
    """Half-integer cut points making at most `n_classes` bands whose smallest share is largest; fewer bands when
    the counts take too few values for every band to hold its fair share. Empty when no split is fair."""
    values = np.unique(counts)
    candidates = [float(v) + 0.5 for v in values[:-1]]
    for n in range(min(n_classes, len(values)), 1, -1):
        best, best_share = None, -1.0
        for cuts in combinations(candidates, n - 1):
            share = class_shares(np.searchsorted(np.asarray(cuts), counts), n).min()
            if share > best_share:
                best, best_share = list(cuts), share
        if best is not None and best_share >= MIN_SHARE_RATIO / n:
            return [number(cut) for cut in best]
    return []


def band_labels(counts: np.ndarray, cuts: list[float]) -> np.ndarray:
    """The band of each count: how many cut points lie below it."""
    return np.searchsorted(np.asarray(cuts, dtype=float), np.asarray(counts, dtype=float))


def describe_bands(cuts: list[float], label_names: list[str], *, lowest: int | None = 0) -> str:
    """"0 to 2 -> a; 3 -> b; 4 or more -> c" for integer counts; `lowest` None when counts may go below any bound."""
    lows = [lowest] + [int(np.ceil(cut)) for cut in cuts]
    highs = [int(np.floor(cut)) for cut in cuts] + [None]
    bands = [f"{low} or more" if high is None else f"{high} or less" if low is None else
             str(low) if low == high else f"{low} to {high}" for low, high in zip(lows, highs)]
    return "; ".join(f"{band} -> {label_names[k]}" for k, band in enumerate(bands))
