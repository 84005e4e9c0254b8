"""Every tabular rule family through the whole pipeline on a bundled seed, and a bundle with every noise kind on."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import build_bundle, noise, rules, synthesize
from sandmle.synth.pipeline import _calibrate, _materialize, make_spec

SEED_OF_FAMILY = {"threshold_tree": "iris", "modular_steps": "iris", "rule_list": "wine", "piecewise_bands": "wine",
                  "linear_logit": "breast_cancer", "nearest_prototype": "breast_cancer", "sparse_additive": "diabetes",
                  "hinge_regimes": "diabetes", "interaction_products": "diabetes"}


def test_every_tabular_family_is_exercised():
    assert set(SEED_OF_FAMILY) == set(rules.CLASSIFICATION_FAMILIES + rules.REGRESSION_FAMILIES)


@pytest.mark.parametrize("family", sorted(SEED_OF_FAMILY))
def test_synthesize_makes_a_validated_task_of_each_family(family, tmp_path):
    result = synthesize(load_bundled_seed(SEED_OF_FAMILY[family]), count=1, rng=11, out_dir=tmp_path,
                        families=(family,))[0]
    assert result.status == "validated", result.reasons
    assert result.rule_family == family == json.loads((result.bundle_dir / "private/rule.json").read_text())["family"]
    assert any(entry["stage"] == "noise" and entry["message"].startswith("recipe") for entry in result.log)


def test_unknown_or_unfit_family_restrictions_are_refused(tmp_path):
    seed = load_bundled_seed("iris")
    with pytest.raises(ValueError, match="unknown rule family"):
        synthesize(seed, count=1, rng=0, out_dir=tmp_path, families=("nope",))
    with pytest.raises(ValueError, match="no rule family among bright_quadrant"):
        synthesize(seed, count=1, rng=0, out_dir=tmp_path, families=("bright_quadrant",))


@pytest.fixture(scope="module")
def noisy_spec():
    seed = load_bundled_seed("iris")
    names = {str(c) for c in seed.frame.columns}
    spec = make_spec(extract_dna(seed), seed_name="iris", seed_names=names, rng_seed=21, log=[], n_train=150,
                     families=("rule_list",))
    columns = [{"name": "logger_battery", "unit": "V"}, {"name": "site_code", "unit": "category"}]
    recipe = {"label_noise": 0.05, "missing_mcar": 0.03, "missing_mar": 0.1, "outliers": 0.01,
              "category_spelling": 0.2, "duplicates": 0.06, "unit_shift": 0.1, "distractors": 2,
              "distractor_columns": columns}
    return dataclasses.replace(spec, noise=recipe)


def test_a_bundle_with_every_noise_kind_is_deterministic_and_calibrates(noisy_spec, tmp_path):
    log: list[dict] = []
    first = build_bundle(noisy_spec, tmp_path / "a", log=log)
    second = build_bundle(noisy_spec, tmp_path / "b")
    for relative in ("public/train.csv", "public/test.csv", "public/description.md", "private/answers.csv"):
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative
    assert {entry["message"].split(":")[0] for entry in log if entry["stage"] == "noise"} == set(noise.NOISE_KINDS)
    train = pd.read_csv(first / "public/train.csv")
    test = pd.read_csv(first / "public/test.csv")
    distractors = [c["name"] for c in noisy_spec.noise["distractor_columns"]]
    description = (first / "public/description.md").read_text()
    assert all(name in train.columns and f"`{name}`" in description for name in distractors)
    assert train.drop(columns="id").duplicated().sum() >= 9 and train["id"].is_unique
    spellings = train[distractors[1]].dropna()
    assert spellings.nunique() > spellings.str.strip().str.lower().nunique()
    assert train.isna().any().any() and test.isna().any().any()
    ladder, milestones, reasons = _calibrate(noisy_spec, first)
    assert ladder["oracle"] > ladder["baseline"] and not [r for r in reasons if "shift" in r or "leak" in r]


def test_noise_leaves_the_rule_and_the_test_labels_bounded(noisy_spec):
    _, _, clean, clean_labels, noisy, labels = _materialize(noisy_spec)
    test = slice(noisy_spec.n_train, None)
    assert np.array_equal(rules.apply_rule(noisy_spec.rule, clean), clean_labels)
    assert (labels[test] == clean_labels[test]).mean() > 1 - 2 * noisy_spec.noise["label_noise"]
    assert set(noisy_spec.rule["features"]) < set(clean.columns) < set(noisy.columns)
