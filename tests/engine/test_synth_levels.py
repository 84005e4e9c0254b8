"""Difficulty levels and successors: the level table's knobs move one way, a successor is the same bytes for the same
lineage, level and rng, records its lineage, passes the critic or says why and leaves nothing, and level 0 is the
task synthesis made."""

from __future__ import annotations

import json

import pytest

from sandmle.errors import UsageError
from sandmle.synth import calibrate
from sandmle.synth.levels import LEVELS, MAX_LEVEL, MIN_LEVEL, check_level, level_of
from sandmle.synth.pipeline import verify_bundle
from sandmle.synth.successor import successor


def test_the_table_runs_from_easier_to_harder_with_level_0_as_synthesis_makes_it():
    assert sorted(LEVELS) == list(range(MIN_LEVEL, MAX_LEVEL + 1)) and MIN_LEVEL < 0 < MAX_LEVEL
    zero = LEVELS[0]
    assert (zero.n_train, zero.noise_scale, zero.milestone_shift) == (None, 1.0, 0.0)
    ordered = [LEVELS[level] for level in sorted(LEVELS)]
    for easier, harder in zip(ordered, ordered[1:]):
        assert harder.noise_scale > easier.noise_scale and harder.milestone_shift > easier.milestone_shift
        assert (harder.n_train or 200) <= (easier.n_train or 200)
    for bad in (MAX_LEVEL + 1, MIN_LEVEL - 1, 1.5, True, "2"):
        with pytest.raises(UsageError, match="^level: "):
            check_level(bad)


def test_milestone_shift_moves_the_lower_milestones_and_keeps_gold_and_order():
    ladder = {"baseline": 0.3, "linear": 0.6, "ensemble": 0.7, "skilled": 0.8, "oracle": 0.9}
    plain = calibrate.milestone_thresholds(ladder, is_lower_better=False)
    harder = calibrate.milestone_thresholds(ladder, is_lower_better=False, shift=0.5)
    easier = calibrate.milestone_thresholds(ladder, is_lower_better=False, shift=-0.5)
    assert harder["gold"] == plain["gold"] == easier["gold"] == 0.8  # the skilled reference still reaches gold
    for name in ("median", "bronze", "silver"):
        assert easier[name] < plain[name] < harder[name] <= plain["gold"]
        assert harder[name] == pytest.approx(plain[name] + 0.5 * (0.8 - plain[name]), abs=1e-6)
    for milestones in (plain, harder, easier):
        assert milestones["median"] < milestones["bronze"] < milestones["silver"] < milestones["gold"]
    lower = calibrate.milestone_thresholds({k: -v for k, v in ladder.items()}, is_lower_better=True, shift=0.5)
    assert lower == {k: -v for k, v in harder.items()}  # lower-is-better metrics move the same way


def test_a_successor_is_the_same_bytes_for_the_same_lineage_level_and_rng(iris_results, tmp_path):
    parent = iris_results[0].bundle_dir
    first = successor(parent, 2, out_dir=tmp_path / "a", reason="solved 4 of 4 at level 0")
    again = successor(parent, 2, out_dir=tmp_path / "b", reason="another reason")
    other = successor(parent, 2, out_dir=tmp_path / "c", rng=1)
    assert first.status == again.status == "validated", first.reasons
    assert first.task_id == again.task_id != other.task_id
    task = json.loads((first.bundle_dir / "task.json").read_text())
    assert task["bundle_sha256"] == json.loads((again.bundle_dir / "task.json").read_text())["bundle_sha256"]
    assert verify_bundle(first.bundle_dir)  # its spec alone rebuilds it
    assert level_of(task) == 2 and task["spec"]["n_train"] == LEVELS[2].n_train
    assert task["spec"]["noise"]["scale"] == LEVELS[2].noise_scale and task["spec"]["rule"] == iris_results[0].spec.rule
    # The first try draws the root's rows (the levels differ by their knobs alone); another rng draws new ones.
    other_spec = json.loads((other.bundle_dir / "task.json").read_text())["spec"]
    assert task["spec"]["rng_seed"] == iris_results[0].spec.rng_seed != other_spec["rng_seed"]
    assert task["lineage"] | {"root_spec": None} == {"root": iris_results[0].task_id, "parent": iris_results[0].task_id,
                                                     "level": 2, "reason": "solved 4 of 4 at level 0",
                                                     "root_spec": None}
    # A successor's successor keeps the lineage's root; level 0 of the lineage is the root's own bytes.
    back = successor(first.bundle_dir, 0, out_dir=tmp_path / "d", reason="solved 0 of 4 at level 2")
    assert back.task_id == iris_results[0].task_id
    assert json.loads((back.bundle_dir / "task.json").read_text())["bundle_sha256"] == iris_results[0].bundle_sha256
    assert json.loads((back.bundle_dir / "task.json").read_text())["lineage"]["parent"] == first.task_id
    with pytest.raises(UsageError, match="^level: "):
        successor(parent, MAX_LEVEL + 1, out_dir=tmp_path / "e")


def test_a_successor_the_critic_rejects_returns_its_reasons_and_leaves_nothing(iris_results, tmp_path):
    import shutil

    parent = tmp_path / "parent"
    shutil.copytree(iris_results[0].bundle_dir, parent)
    task = json.loads((parent / "task.json").read_text())
    # A lineage whose hidden rule gives every row the same class: no level can make it learnable.
    assert task["spec"]["rule"]["family"] == "nearest_prototype"
    task["spec"]["rule"]["labels"] = [0] * len(task["spec"]["rule"]["labels"])
    (parent / "task.json").write_text(json.dumps(task))
    made = successor(parent, 1, out_dir=tmp_path / "out", attempts=2)
    assert made.status == "rejected" and made.bundle_dir is None and made.task_id is None
    assert made.reasons and all(reason.startswith(("try 1: ", "try 2: ")) for reason in made.reasons)
    assert list((tmp_path / "out").iterdir()) == []  # nothing half-made is left; the parent is untouched
    assert json.loads((parent / "task.json").read_text()) == task


def test_a_successor_is_an_ordinary_bundle_the_audit_plays(iris_results, tmp_path):
    from sandmle.cli import main

    made = successor(iris_results[0].bundle_dir, -1, out_dir=tmp_path / "successors", reason="solved 0 of 4")
    assert made.status == "validated", made.reasons
    assert main(["audit", str(made.bundle_dir), "--scaffold", "react", "--attack", "links_submission",
                 "--out", str(tmp_path / "audit")]) == 0
    report = json.loads((tmp_path / "audit" / "audit.json").read_text())
    assert report["passed"] and (tmp_path / "audit" / "episodes" / made.task_id / "react").is_dir()
