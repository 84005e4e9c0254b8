"""What a seed's page shows of its DNA: one row per feature under its column's name, every float rounded to a few
significant digits (the stored DNA keeps full precision; a reader compares shapes, not the 15th digit)."""

from __future__ import annotations

from pathlib import Path

from django.core.cache import cache

from sandmle.seeds import load as engine_seeds
from tasks_app.models import Seed

SIGNIFICANT_DIGITS = 3
CACHE_SECONDS = 3600


def rounded(value, digits: int = SIGNIFICANT_DIGITS):
    """`value` with every float in it (nested lists and dicts included) rounded to `digits` significant digits."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, list):
        return [rounded(item, digits) for item in value]
    if isinstance(value, dict):
        return {key: rounded(item, digits) for key, item in value.items()}
    return value


def _load_feature_names(seed: Seed) -> list[str]:
    if seed.source == Seed.Source.BUNDLED:
        frame = engine_seeds.load_bundled_seed(seed.name).frame
    elif seed.source == Seed.Source.UPLOAD and seed.csv_path and Path(seed.csv_path).is_file():
        frame = engine_seeds.load_csv_seed(seed.csv_path, target=seed.target, name=seed.name).frame
    else:
        return []  # an imported placeholder seed has no rows to name its columns from
    return [str(name) for name in frame.columns if name != seed.target]


def seed_feature_names(*, seed: Seed) -> list[str]:
    """The seed's feature columns in the order its DNA lists them (the DNA itself keeps no names); [] when unknown.

    Read from the seed's data once and cached: a seed's rows never change under its id."""
    key = f"seed-feature-names:{seed.pk}:{seed.name}"
    names = cache.get(key)
    if names is None:
        try:
            names = _load_feature_names(seed)
        except (OSError, ValueError):  # SeedError is a ValueError: a seed file that no longer parses
            names = []
        cache.set(key, names, CACHE_SECONDS)
    return names


def feature_rows(*, dna: dict, names: list[str]) -> list[dict]:
    """One row per feature of the DNA: its column (a placeholder when the names do not line up) and its statistics."""
    features = dna.get("features") or []
    if len(names) != len(features):
        names = [f"feature {index}" for index in range(1, len(features) + 1)]
    return [{"column": name} | rounded(feature) for name, feature in zip(names, features)]
