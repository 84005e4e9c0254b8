"""The frontier controller of adaptive environments (issue 51): its rules on real synthesized lineages (moves up
above the band and down below it, never past the level range, waits for evidence, hysteresis, the per-lineage
limit), a successor whose synthesis fails leaving its parent in place, and refusals of bad adaptive keys."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import Future

import pytest

from sandmle.rl.config import load_train_config
from sandmle.rl.frontier_controller import FrontierController
from sandmle.settings import ConfigError


def _config(tasks, tmp_path, **keys):
    return load_train_config({"model": "m", "tasks": [str(t) for t in tasks], "output_dir": str(tmp_path / "run"),
                              "environments": "adaptive", "frontier_evidence": 4, "group_size": 2,
                              "tasks_per_step": 1, "steps": 100, **keys})


class Held:
    """A submit that keeps each request as an unfinished future: the rules are checked without making successors."""

    def __init__(self):
        self.requests = []

    def __call__(self, fn, **kwargs):
        self.requests.append(kwargs)
        return Future()


def _controller(iris_results, tmp_path, **keys):
    held = Held()
    tasks = [result.bundle_dir for result in iris_results]
    controller = FrontierController(tasks, config=_config(tasks, tmp_path, **keys), out_dir=tmp_path / "env",
                                    submit=held)
    return controller, held


def test_moves_follow_the_band_after_enough_evidence(iris_results, tmp_path):
    controller, held = _controller(iris_results, tmp_path, successors_per_step=2)
    controller.record(0, [1.0, 1.0, 1.0])
    assert controller.wanted_move(0) == 0  # three of four episodes: not yet evidence
    controller.record(0, [1.0])
    controller.record(1, [0.0, 0.0, 0.0, 0.0])
    assert (controller.wanted_move(0), controller.wanted_move(1)) == (1, -1)
    controller.after_step(2, lambda slot: None)
    assert [(r["level"], r["parent_dir"]) for r in held.requests] == [
        (1, str(iris_results[0].bundle_dir)), (-1, str(iris_results[1].bundle_dir))]
    assert "success 1.00 above the band 0.2-0.8 at level 0" in held.requests[0]["reason"]
    assert controller.metrics([0, 1])["successors_pending"] == 2
    controller.after_step(3, lambda slot: None)
    assert len(held.requests) == 2  # a slot with a successor in the making asks for no other


def test_a_first_request_at_a_level_keeps_the_roots_rows_and_a_repeat_draws_new_ones(iris_results, tmp_path):
    """rng 0 makes a successor from the root's own rows (sandmle.synth.levels); after a refusal, the same level is
    asked for with another rng, so the refused bytes are not made again."""
    controller, held = _controller(iris_results, tmp_path)
    controller.record(0, [1.0] * 4)
    controller.after_step(2, lambda slot: None)
    (future,) = controller.futures.values()
    future.set_result({"status": "rejected", "reasons": ["the critic refused it"]})
    controller.after_step(3, lambda slot: None)
    controller.record(0, [1.0] * 4)
    controller.after_step(4, lambda slot: None)
    assert [(r["level"], r["rng"]) for r in held.requests] == [(1, 0), (1, 1)]
    assert controller.state()["requests_at"] == {f"{controller.slots[0].root}@1": 2}


def test_inside_the_band_and_at_the_range_edge_nothing_moves(iris_results, tmp_path):
    controller, held = _controller(iris_results, tmp_path, level_range=[0, 0])
    controller.record(0, [1.0, 0.0, 1.0, 0.0])  # 0.5: inside
    controller.record(1, [1.0] * 4)  # above, but level 1 is outside the range [0, 0]
    assert controller.wanted_move(0) == 0 and controller.wanted_move(1) == 0
    controller.after_step(2, lambda slot: None)
    assert held.requests == []


def test_moving_back_needs_twice_the_evidence_and_lineages_have_a_limit(iris_results, tmp_path):
    controller, held = _controller(iris_results, tmp_path, max_versions_per_lineage=2)
    slot = controller.slots[0]
    slot.last_move = 1  # it just moved up: moving down again is the flap hysteresis guards against
    controller.record(0, [0.0] * 4)
    assert controller.wanted_move(0) == 0
    controller.record(0, [0.0] * 4)
    assert controller.wanted_move(0) == -1  # twice the evidence: the policy really finds it too hard
    controller.versions[slot.root] = 2
    assert controller.wanted_move(0) == 0  # the lineage took its successors for this run


def test_a_failed_synthesis_leaves_the_parent_and_waits_before_asking_again(iris_results, tmp_path):
    """A real worker process makes the successor; the parent's spec is broken, so synthesis fails."""
    broken = shutil.copytree(iris_results[0].bundle_dir, tmp_path / "broken" / iris_results[0].task_id)
    task = json.loads((broken / "task.json").read_text())
    task["spec"]["seed_name"] = "no-such-seed"
    task["spec"]["dna"] = {"not": "a dna"}
    (broken / "task.json").write_text(json.dumps(task))
    config = _config([broken], tmp_path)
    controller = FrontierController([broken], config=config, out_dir=tmp_path / "env")
    try:
        controller.record(0, [1.0] * 4)
        controller.after_step(2, lambda slot: pytest.fail("a failed successor replaced its parent"))
        (future,) = controller.futures.values()
        assert future.result(timeout=120)["status"] == "rejected"
        replaced = []
        controller.after_step(3, replaced.append)
        events = controller.metrics([0])["environment_events"]
        assert replaced == [] and controller.task_dirs() == [broken]
        assert events[0]["event"] == "rejected" and events[0]["reasons"][0].startswith("synthesis failed")
        assert controller.counts == {"made": 1, "accepted": 0, "rejected": 1}
        assert controller.wanted_move(0) == 0  # another window of evidence first
        controller.record(0, [1.0] * 4)
        assert controller.wanted_move(0) == 1
        log = [json.loads(line) for line in (tmp_path / "env" / "environments.jsonl").read_text().splitlines()]
        assert [entry["event"] for entry in log] == ["requested", "rejected"]
    finally:
        controller.close()


@pytest.mark.parametrize("keys, message", [
    ({"frontier_band": [0.8, 0.2]}, "frontier_band: 0.8 to 0.2 is empty or inverted"),
    ({"frontier_band": [0.2, 1.2]}, "frontier_band: 0.2 to 1.2 lies outside 0 to 1"),
    ({"frontier_band": [0.5]}, "frontier_band: expected [LOW, HIGH], two numbers"),
    ({"level_range": [-1, 4]}, "level_range: -1 to 4 reaches beyond the level table (-4 to 3)"),
    ({"level_range": [1, -1]}, "level_range: 1 to -1 is inverted"),
    ({"steps": 3}, "steps: 3 are too few for adaptive environments"),
    ({"adaptive_review": "none"}, "adaptive_review: 'none' is not one of audit, hold"),
])
def test_bad_adaptive_keys_are_refused_with_the_key_named(tmp_path, keys, message):
    with pytest.raises(ConfigError) as refused:
        _config(["t1", "t2"], tmp_path, **keys)
    assert str(refused.value).startswith(message), str(refused.value)
