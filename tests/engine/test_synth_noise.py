"""The noise stage: each kind does what it says at its intensity, is deterministic, and is off at zero."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import noise
from sandmle.synth.domains import mutate_domain

N_ROWS, N_TRAIN = 2000, 600
OFF = {kind: 0.0 for kind in noise.NOISE_KINDS} | {"distractors": 0, "distractor_columns": []}
UNITS = {"temperature": "°C", "mass": "kg", "score": "score", "grade": "category"}


def clean_frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"temperature": rng.normal(20, 5, N_ROWS), "mass": rng.lognormal(1, 0.3, N_ROWS),
                         "score": rng.uniform(0, 10, N_ROWS),
                         "grade": rng.choice(["level_a", "level_b", "level_c"], size=N_ROWS).astype(object)})


def run(recipe: dict, *, task_type: str = "multiclass", seed: int = 0, frame: pd.DataFrame | None = None):
    frame = clean_frame() if frame is None else frame
    labels = np.random.default_rng(5).integers(0, 3, N_ROWS) if task_type != "regression" \
        else np.random.default_rng(5).normal(50, 10, N_ROWS)
    return frame, labels, noise.inject_noise(frame, labels, recipe=OFF | recipe, task_type=task_type, n_classes=3,
                                             n_train=N_TRAIN, rng=np.random.default_rng(seed), units=UNITS)


def test_zero_intensity_changes_nothing():
    frame, labels, noisy = run({})
    pd.testing.assert_frame_equal(noisy.features, frame)
    assert np.array_equal(noisy.labels, labels) and noisy.notes == []
    assert np.array_equal(noisy.source_rows, np.arange(N_ROWS))


def test_label_noise_redraws_about_its_share():
    _, labels, noisy = run({"label_noise": 0.3})
    changed = (noisy.labels != labels).mean()
    assert 0.3 * 2 / 3 - 0.04 < changed < 0.3 * 2 / 3 + 0.04  # a redraw keeps the old class a third of the time
    _, values, noisy = run({"label_noise": 0.2}, task_type="regression")
    assert 0.2 * 10 * 0.9 < np.std(noisy.labels - values) < 0.2 * 10 * 1.1


def test_mcar_missing_values_hit_every_column_at_the_rate():
    _, _, noisy = run({"missing_mcar": 0.1})
    rates = noisy.features.isna().mean()
    assert ((rates > 0.08) & (rates < 0.12)).all(), rates


def _top_vs_bottom(missing: pd.Series, driver: pd.Series) -> float:
    high = driver > driver.median()
    return missing[high].mean() / max(missing[~high].mean(), 1e-3)


def test_mar_missingness_depends_on_another_observed_column():
    frame, _, noisy = run({"missing_mar": 0.15})
    hit = [c for c in frame.columns if noisy.features[c].isna().any()]
    assert hit and all(0.08 < noisy.features[c].isna().mean() < 0.22 for c in hit)
    for column in hit:
        ratios = [_top_vs_bottom(noisy.features[column].isna(), frame[d]) for d in ("temperature", "mass", "score")
                  if d != column]
        assert max(max(ratios), 1 / min(ratios)) > 3.0, ratios  # the driver's high (or low) half loses far more
    assert any("more often when" in note for note in noisy.notes)
    _, _, control = run({"missing_mcar": 0.15})  # MCAR shows no such dependence
    for column in ("temperature", "mass"):
        ratio = _top_vs_bottom(control.features[column].isna(), frame["score"])
        assert 0.6 < ratio < 1.6


def test_outliers_sit_far_above_the_median_at_the_rate():
    frame, _, noisy = run({"outliers": 0.02})
    for column in ("temperature", "mass", "score"):
        far = (noisy.features[column] - frame[column].median()) > 6 * frame[column].std()
        assert 0.01 < far.mean() < 0.03
    assert noisy.features["grade"].equals(frame["grade"])


def test_outliers_vary_as_real_ones_do_at_the_columns_own_precision():
    frame = clean_frame().round({"temperature": 1, "mass": 3, "score": 0})
    _, _, noisy = run({"outliers": 0.02}, frame=frame)
    for column, places in (("temperature", 1), ("mass", 3), ("score", 0)):
        planted = noisy.features[column][noisy.features[column] != frame[column]]
        # No one repeated value to spot (whole numbers repeat only as real whole-number readings do).
        assert len(planted) > 20 and planted.nunique() > (5 if places == 0 else 0.9 * len(planted))
        assert np.allclose(planted, planted.round(places), rtol=0, atol=1e-9)  # no telltale extra decimals
        distance = (planted - frame[column].median()) / frame[column].std()
        assert distance.min() > noise.OUTLIER_SPREAD - noise.OUTLIER_JITTER - 0.01
        assert distance.max() < noise.OUTLIER_SPREAD + noise.OUTLIER_JITTER + 0.01
    # sandmle-synth/3's bundles rebuild: one value per column, and the noise drawn after the outliers is unchanged.
    recipe = {"outliers": 0.02, "missing_mcar": 0.1, "category_spelling": 0.1}
    fixed = noise.inject_noise(frame, np.zeros(N_ROWS), recipe=OFF | recipe, task_type="multiclass", n_classes=3,
                               n_train=N_TRAIN, rng=np.random.default_rng(0), units=UNITS, vary_outliers=False)
    _, _, varied = run(recipe, frame=frame)
    fixed_planted = fixed.features["temperature"][fixed.features["temperature"] > frame["temperature"].max()]
    assert len(fixed_planted) > 20 and fixed_planted.nunique() == 1
    assert fixed.features["grade"].equals(varied.features["grade"])
    assert fixed.features["mass"].isna().equals(varied.features["mass"].isna())


def test_category_spelling_varies_case_and_spaces_of_the_same_levels():
    frame, _, noisy = run({"category_spelling": 0.2})
    values = noisy.features["grade"]
    respelt = values != frame["grade"]
    assert 0.15 < respelt.mean() < 0.25
    canonical = values.str.strip().str.lower().str.replace(" ", "_")
    assert canonical.equals(frame["grade"]) and values[respelt].nunique() > 3
    pd.testing.assert_frame_equal(noisy.features.drop(columns="grade"), frame.drop(columns="grade"))


def test_duplicates_copy_training_rows_only():
    frame, labels, noisy = run({"duplicates": 0.05, "missing_mcar": 0.05, "category_spelling": 0.2})
    train, test = noisy.features.iloc[:N_TRAIN], noisy.features.iloc[N_TRAIN:]
    assert train.duplicated().sum() >= 0.05 * N_TRAIN
    copies = np.flatnonzero(noisy.source_rows != np.arange(N_ROWS))
    assert len(copies) == 30 and copies.max() < N_TRAIN
    originals = noisy.source_rows[copies]
    assert np.array_equal(noisy.labels[copies], noisy.labels[originals])
    pd.testing.assert_frame_equal(train.iloc[copies].reset_index(drop=True), train.iloc[originals].reset_index(drop=True))
    assert test.duplicated().sum() == 0 and noisy.features.dtypes.equals(frame.dtypes)


def test_distractors_add_named_noise_columns_and_keep_the_rest():
    columns = [{"name": "logger_battery", "unit": "V"}, {"name": "site_code", "unit": "category"},
               {"name": "reading_count", "unit": "count"}]
    frame, labels, noisy = run({"distractors": 3, "distractor_columns": columns})
    assert set(noisy.features.columns) == set(frame.columns) | {c["name"] for c in columns}
    pd.testing.assert_frame_equal(noisy.features[list(frame.columns)], frame)
    assert noisy.features["site_code"].str.startswith("level_").all()
    assert (noisy.features["reading_count"] % 1 == 0).all() and noisy.features["logger_battery"].std() > 0
    assert np.array_equal(noisy.labels, labels)


def test_unit_shift_converts_a_share_of_one_column():
    frame, _, noisy = run({"unit_shift": 0.1}, frame=clean_frame()[["temperature", "grade"]])
    shifted = ~np.isclose(noisy.features["temperature"], frame["temperature"])
    assert 0.07 < shifted.mean() < 0.13
    assert np.allclose(noisy.features["temperature"][shifted], frame["temperature"][shifted] * 9 / 5 + 32)
    assert "°F" in " ".join(noisy.notes)


def test_full_recipe_is_deterministic_and_logged():
    recipe = {"label_noise": 0.05, "missing_mcar": 0.03, "missing_mar": 0.1, "outliers": 0.01,
              "category_spelling": 0.1, "duplicates": 0.05, "unit_shift": 0.05, "distractors": 1,
              "distractor_columns": [{"name": "entry_delay", "unit": "min"}]}
    _, _, first = run(recipe, seed=3)
    _, _, second = run(recipe, seed=3)
    _, _, other = run(recipe, seed=4)
    pd.testing.assert_frame_equal(first.features, second.features)
    assert np.array_equal(first.labels, second.labels) and first.notes == second.notes
    assert not first.features.equals(other.features)
    assert {note.split(":")[0] for note in first.notes} == set(noise.NOISE_KINDS)


@pytest.mark.parametrize("seed_name", ["iris", "digits"])
def test_design_recipe_records_every_kind_and_spares_images(seed_name):
    seed = load_bundled_seed(seed_name)
    dna = extract_dna(seed)
    names = {str(c) for c in seed.frame.columns}
    for rng_seed in range(6):
        rng = np.random.default_rng(rng_seed)
        choice = mutate_domain(dna, rng=rng, seed_names=names)
        recipe = noise.design_recipe(dna, choice, rng=rng, seed_names=names)
        assert set(noise.NOISE_KINDS) <= set(recipe) and 0 < recipe["label_noise"] < 0.1
        assert len(recipe["distractor_columns"]) == recipe["distractors"]
        taken = {f["name"] for f in choice.features}
        assert not {c["name"] for c in recipe["distractor_columns"]} & (taken | names)
        if seed_name == "digits":
            assert all(recipe[kind] == 0 for kind in noise.NOISE_KINDS if kind != "label_noise")


def test_a_seed_with_gaps_makes_tasks_with_gaps():
    seed = load_bundled_seed("wine")
    dna = dataclasses.replace(extract_dna(seed), missing_rate=0.12)
    rng = np.random.default_rng(0)
    choice = mutate_domain(dna, rng=rng, seed_names=set(seed.frame.columns))
    assert noise.design_recipe(dna, choice, rng=rng)["missing_mcar"] >= 0.12


def test_the_recipe_reads_as_words():
    recipe = OFF | {"label_noise": 0.061, "missing_mcar": 0.012, "outliers": 0.0012, "distractors": 1,
                    "distractor_columns": [{"name": "plot_volume", "unit": "m\u00b3"}]}
    assert noise.describe_recipe(recipe) == ("label noise 6.1%, missing completely at random 1.2%, outliers 0.12%; "
                                             "1 distractor column: plot_volume (m³)")
    assert noise.describe_recipe(OFF) == "no noise"
    assert set(noise.RECIPE_WORDS) == set(noise.NOISE_KINDS) - {"distractors"}  # every kind has its words
