"""Noise injection: the realistic mess laid over clean generated data — label noise, missing values (MCAR and MAR),
outliers, inconsistent categorical spelling, duplicate training rows, distractor columns and unit shifts.

`design_recipe` draws an intensity for each kind (0 turns a kind off), scaled by the curator's noise strength, and
names the distractor columns; the recipe (with its scale) is part of the TaskSpec. `inject_noise` applies it with its own rng, identically to train and test rows (duplicates
excepted: they are a training-set defect), so it never opens a train/test shift. Hidden rules and the calibration
oracle read the clean frame; noise only bounds the oracle through the label noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sandmle.seeds.dna import QUANTILES
from sandmle.synth.columns import columns_of_kind, level_names
from sandmle.synth.domain_library.readings import Reading
from sandmle.synth.domains import DOMAINS, banned_tokens, declared_column, name_tokens
from sandmle.synth.generate import carry_shape

NOISE_KINDS = ("label_noise", "missing_mcar", "missing_mar", "outliers", "category_spelling", "duplicates",
               "distractors", "unit_shift")
MISSING_KINDS = ("numeric", "categorical")  # column kinds that can lose values
OUTLIER_SPREAD = 8.0  # an outlier sits this many standard deviations above the median, give or take OUTLIER_JITTER
OUTLIER_JITTER = 2.0
OUTLIER_STREAM = 0x0D7

# Units a shifted share of rows was logged in instead: (the other unit, conversion from the column's unit).
UNIT_CONVERSIONS = {
    "°C": ("°F", lambda x: x * 9 / 5 + 32), "K": ("°C", lambda x: x - 273.15), "m": ("cm", lambda x: x * 100),
    "km": ("m", lambda x: x * 1000), "mm": ("cm", lambda x: x / 10), "cm": ("mm", lambda x: x * 10),
    "kg": ("g", lambda x: x * 1000), "g": ("kg", lambda x: x / 1000), "h": ("min", lambda x: x * 60),
    "min": ("s", lambda x: x * 60), "s": ("ms", lambda x: x * 1000), "kW": ("W", lambda x: x * 1000),
    "%": ("a fraction", lambda x: x / 100), "kUSD": ("USD", lambda x: x * 1000), "kEUR": ("EUR", lambda x: x * 1000),
}
DEFAULT_CONVERSION = ("a unit 1000 times smaller", lambda x: x * 1000)

# Plausible names for pure-noise columns when the domain has no unused ones: (name, unit).
GENERIC_DISTRACTORS = (("record_sequence", "index"), ("logger_battery", "V"), ("entry_delay", "min"),
                       ("form_version", "category"), ("audit_score", "score"), ("reading_count", "count"),
                       ("site_code", "category"), ("operator_shift", "category"), ("sensor_firmware", "category"),
                       ("upload_lag", "h"))

SPELLINGS = (str.upper, str.title, str.capitalize, lambda s: s + " ", lambda s: " " + s, lambda s: s.replace("_", " "))


def _distractor_columns(choice, count: int, seed_names: set[str], rng: np.random.Generator) -> list[dict]:
    """Names for pure-noise columns: the domain's unused readings first, then generic ones; never a seed's name."""
    taken = {f["name"] for f in choice.features} | {choice.target_name, "id"}
    banned = banned_tokens(seed_names)
    domain = next((d for d in DOMAINS if d.domain_id == choice.domain_id), None)
    unused = [(n, u) for n, u in (domain.features if domain else ()) if n not in taken]
    pool = [(n, u) for n, u in [*rng.permutation(np.array(unused, dtype=object)).tolist(), *GENERIC_DISTRACTORS]
            if not name_tokens(n) & banned and n not in taken]
    named = []
    for name, unit in pool:
        if len(named) == count:
            break
        if name not in {n["name"] for n in named}:
            named.append(declared_column(str(name), str(unit)))
    return named


def glitch_share(recipe: dict) -> float:
    """The most of one column's readings the recipe makes implausible (outliers, plus a unit slip on one column):
    the share the description states and the critic allows."""
    return round(recipe.get("outliers", 0.0) + recipe.get("unit_shift", 0.0), 4)


NOISE_SCALE_MAX = 2.0  # the most a curator may multiply the drawn intensities by
# The most any intensity reaches however it is scaled: more would bury the rule (labels, missing values) or break a
# stage's assumption (duplicates overwrite other training rows, so they stay well under half of them).
NOISE_CAPS = {"label_noise": 0.2, "missing_mcar": 0.4, "missing_mar": 0.4, "outliers": 0.03, "category_spelling": 0.4,
              "duplicates": 0.2, "unit_shift": 0.15}
MAX_DISTRACTORS = 6


def design_recipe(dna, choice, *, rng: np.random.Generator, seed_names: set[str] = frozenset(),
                  scale: float = 1.0) -> dict:
    """The noise recipe of a task: an intensity per kind (0 = off) and the distractor columns' names and units.

    scale multiplies every drawn intensity and the distractor count (0: a clean task; capped by NOISE_CAPS); the
    draws themselves do not depend on it, so scale 1 is the unscaled recipe and other scales are recorded in it."""
    if not 0 <= scale <= NOISE_SCALE_MAX:
        raise ValueError(f"noise scale {scale} is outside 0 to {NOISE_SCALE_MAX}")
    tabular = dna.modality != "image"  # pixel grids get label noise only; the image generator adds its own

    def maybe(chance: float, low: float, high: float, digits: int = 3) -> float:
        drawn = round(float(rng.uniform(low, high)), digits)
        return drawn if tabular and rng.random() < chance else 0.0

    seed_missing = round(float(dna.missing_rate), 3) if tabular else 0.0  # a seed with gaps makes tasks with gaps
    recipe = {"label_noise": round(float(rng.uniform(0.02, 0.08)), 3),
              "missing_mcar": max(maybe(0.8, 0.0, 0.05), min(seed_missing, 0.3)), "missing_mar": maybe(0.5, 0.04, 0.15),
              "outliers": maybe(0.7, 0.0, 0.01, 4), "category_spelling": maybe(0.7, 0.05, 0.2),
              "duplicates": maybe(0.5, 0.02, 0.08), "unit_shift": maybe(0.4, 0.02, 0.06)}
    count = int(rng.integers(0, 4)) if tabular else 0
    if scale != 1.0:  # untouched at 1, so the recipes (and task ids) of unscaled runs stay what they were
        recipe = {kind: round(min(value * scale, NOISE_CAPS[kind]), 4) for kind, value in recipe.items()}
        count = min(int(round(count * scale)), MAX_DISTRACTORS)
    recipe["distractors"] = count
    recipe["distractor_columns"] = _distractor_columns(choice, count, set(seed_names), rng) if count else []
    if scale != 1.0:
        recipe["scale"] = float(scale)
    return recipe


# The recipe's intensities in words, in the order a reader meets them in the data.
RECIPE_WORDS = {"label_noise": "label noise", "missing_mcar": "missing completely at random",
                "missing_mar": "missing at random", "outliers": "outliers", "category_spelling": "misspelt categories",
                "duplicates": "duplicate rows", "unit_shift": "unit slips"}


def describe_recipe(recipe: dict) -> str:
    """The recipe as a reader wants it: "label noise 6.1%, missing completely at random 1.2%; 2 distractor columns:
    soil_ph (pH), leaf_area_index (m²/m²)", or "no noise"; kinds at 0 are left out, a scale other than 1 is named."""
    parts = [f"{words} {float(recipe[key]) * 100:.3g}%" for key, words in RECIPE_WORDS.items() if recipe.get(key)]
    text = ", ".join(parts)
    columns = recipe.get("distractor_columns") or []
    if columns:
        named = ", ".join(f"{column['name']} ({column['unit']})" if column.get("unit") else str(column["name"])
                          for column in columns)
        text += ("; " if text else "") + f"{len(columns)} distractor column{'s' if len(columns) != 1 else ''}: {named}"
    text = text or "no noise"
    if "scale" in recipe:  # a curator's noise strength other than 1
        text += f" (noise strength {float(recipe['scale']):g}×)"
    return text


@dataclass
class NoisyData:
    """The noisy frame and labels, which clean row each noisy row shows, and what the stage did."""

    features: pd.DataFrame
    labels: np.ndarray
    source_rows: np.ndarray
    notes: list[str] = field(default_factory=list)


def _add_distractors(frame: pd.DataFrame, columns: list[dict], rng: np.random.Generator, notes: list[str]) -> pd.DataFrame:
    n = len(frame)
    for spec in columns:
        if spec["unit"] == "category":
            levels = spec.get("levels") or level_names(int(rng.integers(2, 6)))
            values = np.asarray(levels, dtype=object)[rng.choice(len(levels), size=n, p=rng.dirichlet(np.full(len(levels), 3.0)))]
        elif spec["unit"] in ("count", "index") and "typical" not in spec:
            values = rng.poisson(float(rng.uniform(1, 40)), size=n).astype(float)
        else:
            centre, spread = float(rng.uniform(1, 500)), float(rng.uniform(0.05, 0.4))
            values = np.round(centre * rng.lognormal(0.0, spread, size=n), 3)
            if "typical" in spec:  # the drawn shape, carried onto the column's declared range
                values = np.round(carry_shape(values, np.quantile(values, QUANTILES).tolist(), Reading.from_dict(spec)), 3)
        position = int(rng.integers(0, frame.shape[1] + 1))  # anywhere among the real columns
        frame.insert(position, spec["name"], values)
    if columns:
        notes.append(f"distractors: added pure-noise columns {', '.join(c['name'] for c in columns)}")
    return frame


def _shift_units(frame: pd.DataFrame, rate: float, units: dict, rng: np.random.Generator, notes: list[str]) -> None:
    numeric = columns_of_kind(frame, "numeric")
    if rate <= 0 or not numeric:
        return
    convertible = [c for c in numeric if units.get(c) in UNIT_CONVERSIONS]
    column = str(rng.choice(convertible or numeric))
    other, convert = UNIT_CONVERSIONS.get(units.get(column, ""), DEFAULT_CONVERSION)
    rows = rng.uniform(size=len(frame)) < rate
    frame.loc[rows, column] = convert(frame.loc[rows, column].to_numpy(dtype=float))
    notes.append(f"unit_shift: {rows.sum()} rows of {column} logged in {other} instead of {units.get(column) or 'its unit'}")


def _add_outliers(frame: pd.DataFrame, rate: float, rng: np.random.Generator, notes: list[str], *,
                  vary: bool = True) -> None:
    """Implausible readings far above the median. Real outliers vary (a mis-keyed reading, a spike): each sits its
    own distance above the median, written to the column's own precision, so no one repeated value gives them away.
    `vary=False` puts every outlier of a column at one value, as sandmle-synth/3 did (its bundles rebuild alike)."""
    if rate <= 0:
        return
    total = 0
    for index, column in enumerate(columns_of_kind(frame, "numeric")):
        rows = rng.uniform(size=len(frame)) < rate
        median, spread = frame[column].median(), frame[column].std() or 1.0
        if not vary:
            frame.loc[rows, column] = median + OUTLIER_SPREAD * spread
        elif rows.any():
            # Their own stream, seeded by where they sit: the noise drawn after them stays what it was.
            own = np.random.default_rng([OUTLIER_STREAM, index, *np.flatnonzero(rows).tolist()])
            distance = own.uniform(OUTLIER_SPREAD - OUTLIER_JITTER, OUTLIER_SPREAD + OUTLIER_JITTER, int(rows.sum()))
            frame.loc[rows, column] = np.round(median + distance * spread, _decimals(frame.loc[~rows, column]))
        total += int(rows.sum())
    notes.append(f"outliers: {total} implausible readings over the numeric columns")


def _decimals(values: pd.Series) -> int:
    """The fewest decimals (up to 6, the bundle's float format) that write every value of a column as it is."""
    numbers = values.dropna().to_numpy(dtype=float)
    return next((places for places in range(6) if np.allclose(numbers, np.round(numbers, places), rtol=0, atol=1e-9)),
                6)


def _misspell_levels(frame: pd.DataFrame, rate: float, rng: np.random.Generator, notes: list[str]) -> None:
    if rate <= 0:
        return
    for column in columns_of_kind(frame, "categorical"):
        values = frame[column].to_numpy(dtype=object).copy()
        rows = np.flatnonzero((rng.uniform(size=len(values)) < rate) & pd.notna(values))
        styles = rng.integers(len(SPELLINGS), size=len(rows))
        for row, style in zip(rows, styles):
            values[row] = SPELLINGS[style](str(values[row]))
        frame[column] = values
        notes.append(f"category_spelling: {len(rows)} values of {column} re-spelt (case, spaces)")


def _missing_at_random(frame: pd.DataFrame, rate: float, rng: np.random.Generator, notes: list[str]) -> None:
    """Values go missing more often where another, observed column is high (or low): missing at random, not MCAR."""
    drivers = columns_of_kind(frame, "numeric")
    if rate <= 0 or len(drivers) < 1 or frame.shape[1] < 2:
        return
    driver = str(rng.choice(drivers))
    targets = [c for c in columns_of_kind(frame, *MISSING_KINDS) if c != driver]
    if not targets:
        return
    chosen = rng.choice(targets, size=min(len(targets), int(rng.integers(1, 3))), replace=False).tolist()
    rank = frame[driver].rank(pct=True).fillna(0.5).to_numpy()
    high = bool(rng.random() < 0.5)
    pressure = rank if high else 1.0 - rank
    probability = np.clip(3.0 * rate * pressure ** 2, 0.0, 1.0)  # mean 3u^2 over a uniform rank is 1: overall rate kept
    for column in chosen:
        rows = rng.uniform(size=len(frame)) < probability
        frame.loc[rows, column] = np.nan
        notes.append(f"missing_mar: {rows.sum()} values of {column} missing, more often when {driver} is "
                     f"{'high' if high else 'low'}")


def _missing_completely_at_random(frame: pd.DataFrame, rate: float, rng: np.random.Generator, notes: list[str]) -> None:
    if rate <= 0:
        return
    total = 0
    for column in columns_of_kind(frame, *MISSING_KINDS):
        rows = rng.uniform(size=len(frame)) < rate
        frame.loc[rows, column] = np.nan
        total += int(rows.sum())
    notes.append(f"missing_mcar: {total} values missing completely at random")


def _noisy_labels(labels: np.ndarray, rate: float, task_type: str, n_classes: int, rng: np.random.Generator,
                  notes: list[str]) -> np.ndarray:
    labels = labels.copy()
    if rate <= 0:
        return labels
    if task_type == "regression":
        labels = labels + rng.normal(0, rate * (labels.std() or 1.0), size=len(labels))
        notes.append(f"label_noise: gaussian noise of {rate:.3g} target standard deviations")
    else:
        flip = rng.uniform(size=len(labels)) < rate
        labels[flip] = rng.integers(n_classes, size=int(flip.sum()))
        notes.append(f"label_noise: {flip.sum()} labels redrawn at random")
    return labels


def inject_noise(features: pd.DataFrame, labels: np.ndarray, *, recipe: dict, task_type: str, n_classes: int,
                 n_train: int, rng: np.random.Generator, units: dict | None = None,
                 vary_outliers: bool = True) -> NoisyData:
    """Apply the recipe to clean features and labels; the first n_train rows are the training rows.

    units maps a column to its unit, so a unit shift converts to a real other unit (°C to °F, kg to g, ...).
    """
    frame = features.copy()
    notes: list[str] = []
    units = dict(units or {}) | {c["name"]: c["unit"] for c in recipe.get("distractor_columns", [])}
    frame = _add_distractors(frame, recipe.get("distractor_columns", [])[: recipe.get("distractors", 0)], rng, notes)
    _shift_units(frame, recipe.get("unit_shift", 0.0), units, rng, notes)
    _add_outliers(frame, recipe.get("outliers", 0.0), rng, notes, vary=vary_outliers)
    _misspell_levels(frame, recipe.get("category_spelling", 0.0), rng, notes)
    _missing_at_random(frame, recipe.get("missing_mar", 0.0), rng, notes)
    _missing_completely_at_random(frame, recipe.get("missing_mcar", 0.0), rng, notes)
    noisy_labels = _noisy_labels(np.asarray(labels), recipe.get("label_noise", 0.0), task_type, n_classes, rng, notes)
    source_rows = np.arange(len(frame))
    n_copies = int(round(recipe.get("duplicates", 0.0) * n_train))
    if n_copies and n_train > 2 * n_copies:  # copies overwrite other training rows, so the row counts stay the spec's
        picked = rng.choice(n_train, size=2 * n_copies, replace=False)
        originals, copies = picked[:n_copies], picked[n_copies:]
        for column in frame.columns:  # column by column, so numeric columns keep their dtype
            values = frame[column].to_numpy().copy()
            values[copies] = values[originals]
            frame[column] = values
        noisy_labels[copies] = noisy_labels[originals]
        source_rows[copies] = originals
        notes.append(f"duplicates: {n_copies} training rows repeat other training rows")
    return NoisyData(frame, noisy_labels, source_rows, notes)
