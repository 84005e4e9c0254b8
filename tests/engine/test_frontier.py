"""`sandmle frontier`: the reply-menu policy's success rate falls as the level rises (measured on two seeds through
the runner, sandbox and grader), and re-levelling a set with a saturated and an impossible task moves both into
the other direction; bad bands, levels and policies are refused before any work (exit 2, key named)."""

from __future__ import annotations

import json
import os

import pytest

from sandmle.cli import main

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def fitting_policy(tmp_path_factory):
    """The tiny Qwen3 whose reply menu holds only the fitted extra-trees program (two wordings of it): its success on
    a task is whether that program earns a medal, so a task's rate says how hard the task is, not how lucky a draw."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    fit = TABULAR_REPLY_MENU[0]
    menu = [fit, fit.replace("<think>Fit", "<think>Train", 1)]
    return f"hf:{build_tiny_checkpoint(tmp_path_factory.mktemp('fit-menu') / 'checkpoint', reply_menu=menu)}"


def measured(task_dirs, policy):
    from sandmle.agents.policies import make_policy
    from sandmle.episodes.runner import EpisodeConfig
    from sandmle.evaluation.frontier import success_rates

    rates = success_rates(task_dirs, policy=make_policy(policy), samples=1, scaffold="react", reward="dense",
                          success_threshold=0.5, concurrency=2, config=EpisodeConfig(max_turns=1))
    return sum(wins for wins, _ in rates.values()), sum(runs for _, runs in rates.values())


def test_success_rate_does_not_rise_with_the_level_on_two_seeds(iris_results, tmp_path, fitting_policy):
    from sandmle.seeds.load import load_bundled_seed
    from sandmle.synth import synthesize
    from sandmle.synth.levels import MIN_LEVEL
    from sandmle.synth.successor import successor

    wine = [r for r in synthesize(load_bundled_seed("wine"), count=2, rng=11, out_dir=tmp_path / "wine")
            if r.status == "validated"]
    totals = []
    for seed, roots in (("iris", iris_results), ("wine", wine)):
        counts = []
        # Not level 3: its 80 rows cannot be the root's, so each lineage gets a new draw there, and one of wine's
        # two draws was solved (bench/level_spread measures every level).
        for level in (MIN_LEVEL, 0, 2):
            made = [successor(root.bundle_dir, level, out_dir=tmp_path / seed / str(level)) for root in roots]
            counts.append(measured([m.bundle_dir for m in made if m.status == "validated"], fitting_policy))
        rates = [wins / runs for wins, runs in counts]
        assert rates[0] >= rates[1] >= rates[2], (seed, rates)
        totals.append(counts)
    overall = [sum(seed[i][0] for seed in totals) / sum(seed[i][1] for seed in totals) for i in range(3)]
    assert overall[0] > overall[2], overall


def test_frontier_moves_a_saturated_and_an_impossible_task_towards_the_band(iris_results, tmp_path, fitting_policy,
                                                                            capsys):
    from sandmle.synth.successor import successor

    root = iris_results[0]
    # The fitted trees earn a medal on this lineage up to level 2, not at level 3 (measured through the sandbox).
    saturated = successor(root.bundle_dir, 2, out_dir=tmp_path / "start").bundle_dir
    impossible = successor(root.bundle_dir, 3, out_dir=tmp_path / "start").bundle_dir
    out = tmp_path / "relevelled"
    assert main(["frontier", str(saturated), str(impossible), "--policy", fitting_policy, "--out", str(out),
                 "--samples", "1", "--max-turns", "1", "--concurrency", "2"]) == 0
    report = json.loads((out / "frontier.json").read_text())
    first, second = report["rows"]
    assert (first["level"], first["rate"], first["action"]) == (2, 1.0, "harder")
    assert (first["successor"]["status"], first["successor"]["level"], first["rate_after"]) == ("validated", 3, 0.0)
    assert first["successor"]["reason"] == "solved 1 of 1 at level 2"
    assert (second["level"], second["rate"], second["action"]) == (3, 0.0, "easier")
    assert (second["successor"]["status"], second["successor"]["level"], second["rate_after"]) == ("validated", 2, 1.0)
    # A lineage's level is one task: its first try keeps the root's rows, so the same level gives the same bytes.
    assert second["successor"]["task_id"] == saturated.name and first["successor"]["task_id"] == impossible.name
    assert report["moved"] == 2 and report["failed"] == 0
    # The new set is the two successors, complete bundles with their lineage, beside frontier.json.
    assert sorted(report["tasks"]) == sorted(str(out / row["successor"]["task_id"]) for row in report["rows"])
    lineage = json.loads((out / first["successor"]["task_id"] / "task.json").read_text())["lineage"]
    assert lineage | {"root_spec": None} == {"root": root.task_id, "parent": saturated.name, "level": 3,
                                             "reason": "solved 1 of 1 at level 2", "root_spec": None}
    table = capsys.readouterr().out
    assert "harder" in table and "easier" in table and '"moved": 2' in table


@pytest.mark.parametrize("arguments, message", [
    (["--band", "0.8", "0.2"], "band: 0.8 to 0.2 is empty or inverted"),
    (["--band", "0.5", "0.5"], "band: 0.5 to 0.5 is empty or inverted"),
    (["--band", "-0.1", "0.5"], "band: -0.1 to 0.5 lies outside 0 to 1"),
    (["--policy", "hf:/no/such/checkpoint"], "policy: /no/such/checkpoint is not a checkpoint folder"),
    (["--policy", "gpt"], "policy: unknown policy spec 'gpt'"),
])
def test_bad_input_is_refused_before_any_work(iris_results, tmp_path, capsys, arguments, message):
    base = {"--policy": "baseline", "--band": None}
    given = [str(iris_results[0].bundle_dir), "--out", str(tmp_path / "out")]
    if "--policy" not in arguments:
        given += ["--policy", base["--policy"]]
    assert main(["frontier", *given, *arguments]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error
    assert not (tmp_path / "out").exists()  # nothing was measured or written


def test_the_level_table_prints_and_a_set_without_bundles_is_refused(tmp_path, capsys):
    assert main(["frontier", "--levels"]) == 0
    assert "level  0: rows  own, noise x1, milestone shift +0" in capsys.readouterr().out
    (tmp_path / "empty").mkdir()
    assert main(["frontier", str(tmp_path / "empty"), "--policy", "baseline", "--out", str(tmp_path / "o")]) == 2
    assert "task set: no task bundle" in capsys.readouterr().err
