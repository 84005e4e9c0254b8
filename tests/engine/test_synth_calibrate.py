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
