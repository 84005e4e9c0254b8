"""Calibration on mixed frames: the per-kind preprocessor, the leak probe and the shift test on string columns."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.synth import calibrate


def mixed(n_rows: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n_rows)
    frame = pd.DataFrame({"id": [f"abc_{i:05d}" for i in rng.permutation(n_rows)],
                          "signal": labels + rng.normal(0, 1.0, n_rows), "noise": rng.normal(size=n_rows),
                          "site": rng.choice(["level_a", "Level_A", "level_b ", "LEVEL_C"], size=n_rows).astype(object)})
    frame.loc[rng.uniform(size=n_rows) < 0.1, "signal"] = np.nan
    frame.loc[rng.uniform(size=n_rows) < 0.1, "site"] = np.nan
    return frame, labels


def test_preprocessor_reads_numbers_with_gaps_and_raw_spellings_and_ignores_unseen_levels():
    train, _ = mixed(120, 0)
    test, _ = mixed(50, 1)
    test.loc[0, "site"] = "never_seen"
    kinds = calibrate.column_kinds(train)
    assert kinds == {"id": "identifier", "signal": "numeric", "noise": "numeric", "site": "categorical"}
    preprocessor = calibrate.make_preprocessor(train).fit(train)
    encoded = preprocessor.transform(test)
    # two numbers, four spellings kept apart, and a level for the missing values
    assert encoded.shape == (50, 2 + 4 + 1) and not np.isnan(encoded).any()
    assert encoded[0, 2:].sum() == 0  # an unseen level encodes as all zeros
    with_id = calibrate.make_preprocessor(train, include_identifier=True).fit(train)
    assert with_id.transform(test).shape == (50, 8)


def test_ladder_fits_on_mixed_frames():
    train, y_train = mixed(150, 0)
    test, y_test = mixed(300, 1)
    ladder = calibrate.ladder_scores(x_train=train.drop(columns="id"), y_train=y_train, x_test=test.drop(columns="id"),
                                     y_test=y_test, oracle_prediction=y_test, metric="accuracy", task_type="binary",
                                     labels=[0, 1])
    assert ladder["oracle"] == 1.0 and ladder["linear"] > ladder["baseline"] - 0.05


def test_critic_rejects_a_leaky_string_column_and_a_leaky_id():
    train, y_train = mixed(150, 0)
    test, y_test = mixed(300, 1)
    spell = np.array(["ok", "Faulty "], dtype=object)  # the label itself, spelt messily
    train["status_note"], test["status_note"] = spell[y_train], spell[y_test]
    rng = np.random.default_rng(2)
    for frame, labels in ((train, y_train), (test, y_test)):  # ids numbered by class, as when files were concatenated
        frame["id"] = [f"abc_{label * 1000 + number:05d}" for label, number in zip(labels, rng.permutation(len(labels)))]
    leaks = calibrate.single_column_scores(train, test, y_train, y_test, metric="accuracy", task_type="binary")
    ladder = {"baseline": 0.5, "linear": 0.7, "ensemble": 0.75, "oracle": 0.95}
    reasons = calibrate.critic(ladder=ladder, milestones=calibrate.milestone_thresholds(ladder, is_lower_better=False),
                               is_lower_better=False, leak_scores=leaks, shift_pvalues={})
    assert any("leak: column 'status_note'" in reason for reason in reasons)
    assert any("leak: column 'id'" in reason for reason in reasons)
    assert not any("'site'" in reason or "'noise'" in reason for reason in reasons)


def test_shift_test_reads_categorical_levels():
    rng = np.random.default_rng(0)
    levels = np.array(["level_a", "Level_A", "level_b", "level_c "], dtype=object)
    train = pd.DataFrame({"site": levels[rng.choice(4, 200, p=[0.4, 0.1, 0.3, 0.2])], "x": rng.normal(size=200)})
    same = pd.DataFrame({"site": levels[rng.choice(4, 600, p=[0.4, 0.1, 0.3, 0.2])], "x": rng.normal(size=600)})
    moved = pd.DataFrame({"site": levels[rng.choice(4, 600, p=[0.1, 0.1, 0.2, 0.6])], "x": rng.normal(size=600)})
    assert calibrate.shift_pvalues(train, same)["site"] > 1e-3
    assert calibrate.shift_pvalues(train, moved)["site"] < 1e-3


LADDERS = [  # higher is better: skilled above the plain models, below them, below the baseline, and all tied
    {"baseline": 0.5, "linear": 0.6, "ensemble": 0.65, "skilled": 0.9, "oracle": 0.95},
    {"baseline": 0.5, "linear": 0.6, "ensemble": 0.8, "skilled": 0.75, "oracle": 0.95},
    {"baseline": 0.5, "linear": 0.45, "ensemble": 0.48, "skilled": 0.49, "oracle": 0.95},
    {"baseline": 0.5, "linear": 0.5, "ensemble": 0.5, "skilled": 0.5, "oracle": 0.5},
]


def test_thresholds_are_strictly_ordered_for_either_direction():
    for ladder in LADDERS:
        higher = calibrate.milestone_thresholds(ladder, is_lower_better=False)
        assert higher["median"] < higher["bronze"] < higher["silver"] < higher["gold"], ladder
        losses = {name: 1.0 - value for name, value in ladder.items()}  # the same ladder as a loss
        lower = calibrate.milestone_thresholds(losses, is_lower_better=True)
        assert lower["median"] > lower["bronze"] > lower["silver"] > lower["gold"], losses
        assert all(abs(lower[name] - (1.0 - higher[name])) < 1e-5 for name in higher)


def test_gold_is_the_skilled_score_and_the_oracle_sets_no_milestone():
    ladder = LADDERS[0]
    thresholds, sources = calibrate.milestone_plan(ladder, is_lower_better=False)
    assert thresholds["gold"] == ladder["skilled"] and sources["gold"] == "skilled"
    assert thresholds["bronze"] == ladder["ensemble"] and sources["bronze"] == "ensemble"
    assert sources["median"] == "linear" and "oracle" not in sources.values()
    assert thresholds == calibrate.milestone_thresholds(dict(ladder, oracle=0.99), is_lower_better=False)
    assert calibrate.headroom(ladder, is_lower_better=False) == 0.8889
    rmse = {"baseline": 30.0, "linear": 20.0, "ensemble": 12.0, "skilled": 8.0, "oracle": 4.0}
    assert calibrate.milestone_thresholds(rmse, is_lower_better=True)["gold"] == 8.0
    assert calibrate.headroom(rmse, is_lower_better=True) == round(22 / 26, 4)


def test_critic_rejects_a_skilled_reference_that_recovers_little_of_the_headroom():
    weak = {"baseline": 0.5, "linear": 0.55, "ensemble": 0.56, "skilled": 0.6, "oracle": 0.95}
    reasons = calibrate.critic(ladder=weak, milestones={}, is_lower_better=False, leak_scores={}, shift_pvalues={})
    assert [r for r in reasons if r.startswith("low headroom")] == reasons and "recovers 0.22" in reasons[0]
    fair = dict(weak, skilled=0.7)  # 0.44 of the headroom
    assert not calibrate.critic(ladder=fair, milestones={}, is_lower_better=False, leak_scores={}, shift_pvalues={})
