"""Campaign metrics: mean ± SEM against hand-computed values, best-of-k against brute force, HumanRank, cells, the report."""

from __future__ import annotations

import itertools
import math

import pytest

from sandmle.errors import UsageError
from sandmle.evaluation.metrics import best_of_k, cell_metrics, human_rank, mean_sem, outcome_rates
from sandmle.evaluation.transfer import report_csv, report_table, transfer_report


def test_mean_sem_matches_hand_computed_values():
    # values 1, 2, 3, 6: mean 3, sample variance (4+1+0+9)/3 = 14/3, SEM sqrt(14/3/4)
    mean, sem = mean_sem([1, 2, 3, 6])
    assert mean == 3.0 and sem == pytest.approx(math.sqrt(14 / 12))
    assert mean_sem([0.5]) == (0.5, 0.0)
    assert mean_sem([]) == (None, None)


def brute_force_best_of_k(samples: list[bool], k: int) -> float:
    subsets = list(itertools.combinations(samples, k))
    return sum(any(subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize("tasks", [[[True, False, False]], [[False, False, True, True], [False] * 4, [True] * 4],
                                   [[True, False, True, False, False], [False, True, False, False, False]]])
def test_best_of_k_is_the_brute_force_mean_over_every_k_subset(tasks):
    for k in range(1, len(tasks[0]) + 1):
        expected = sum(brute_force_best_of_k(samples, k) for samples in tasks) / len(tasks)
        assert best_of_k(tasks, k) == pytest.approx(expected)


def test_best_of_k_refuses_k_beyond_the_repeats():
    with pytest.raises(UsageError, match="^k: "):
        best_of_k([[True, False]], 3)


def test_outcome_rates_count_valid_and_medal_grades_over_every_episode():
    grades = [{"valid_submission": True, "any_medal": True}, {"valid_submission": True}, None, {}]
    assert outcome_rates(grades) == {"valid_rate": 0.5, "medal_rate": 0.25}
    assert outcome_rates([], names=("above_median_rate",)) == {"above_median_rate": 0.0}


def test_human_rank_is_mle_dojo_position_score():
    board = [0.9, 0.8, 0.7, 0.6]
    assert human_rank(0.95, board, False) == 1.0          # p = 1
    assert human_rank(0.75, board, False) == 0.5          # p = 3: (4 - 3 + 1) / 4
    assert human_rank(0.5, board, False) == 0.0           # worse than all
    assert human_rank(0.65, board, True) == 0.75          # lower is better: only 0.6 beats it, p = 2
    assert human_rank(None, board, False) == 0.0


def episode(policy, scaffold, task, seed, *, medal, valid=True, rank=0.5, turns=2, tokens=10, wall=1.0):
    report = {"any_medal": medal, "gold_medal": medal, "silver_medal": False, "bronze_medal": False,
              "valid_submission": valid, "above_median": medal, "position_score": rank}
    turn_list = [{"role": "assistant"}, {"role": "tool"}] * turns
    trajectory = {"turns": turn_list, "tokens": [{"completion_ids": [0] * tokens}], "wall_s": wall}
    return {"key": f"{policy}|{scaffold}|{task}|{seed}", "policy": policy, "scaffold": scaffold, "task_id": task,
            "seed": seed, "report": report, "trajectory": trajectory}


def test_cell_metrics_average_per_seed_rates_with_their_sem():
    # seed 0: medals on 2 of 2 tasks (rate 1.0); seed 1: 1 of 2 (0.5); seed 2: 0 of 2 (0.0) -> mean 0.5, SEM 0.5/sqrt(3)
    medals = {0: (True, True), 1: (True, False), 2: (False, False)}
    episodes = [episode("p", "react", task, seed, medal=medals[seed][i], wall=seed + 1.0)
                for seed in medals for i, task in enumerate(("a", "b"))]
    cell = cell_metrics(episodes)
    assert cell["n"] == 6
    assert cell["metrics"]["medal_rate"]["mean"] == pytest.approx(0.5)
    assert cell["metrics"]["medal_rate"]["sem"] == pytest.approx(0.5 / math.sqrt(3))
    assert cell["metrics"]["valid_rate"] == {"mean": 1.0, "sem": 0.0}
    assert cell["metrics"]["mean_turns"]["mean"] == 2.0 and cell["metrics"]["mean_tokens"]["mean"] == 10.0
    assert cell["metrics"]["mean_wall_s"]["mean"] == pytest.approx(2.0)
    # task a: 2 medals in 3 seeds, task b: 1 in 3
    assert [row["k"] for row in cell["best_of_k"]] == [1, 2, 3]
    assert cell["best_of_k"][0]["medal_rate"] == pytest.approx(0.5)
    assert cell["best_of_k"][2]["medal_rate"] == pytest.approx(1.0)


def test_transfer_report_shows_change_against_the_baseline_row():
    episodes = ([episode("sft", s, "a", seed, medal=seed == 0) for s in ("react", "aide") for seed in range(2)]
                + [episode("grpo", s, "a", seed, medal=True) for s in ("react", "aide") for seed in range(2)])
    report = transfer_report(episodes, baseline="sft")
    assert report["policies"] == ["sft", "grpo"] and report["scaffolds"] == ["react", "aide"]
    grpo_react = next(c for c in report["cells"] if c["policy"] == "grpo" and c["scaffold"] == "react")
    assert grpo_react["metrics"]["medal_rate"]["mean"] == 1.0
    assert grpo_react["relative"]["medal_rate"] == pytest.approx(1.0)  # 1.0 vs 0.5: +100%
    assert len(grpo_react["episode_keys"]) == 2
    table = report_table(report)
    assert "+100.0%" in table and "sft [baseline]" in table
    lines = report_csv(report).splitlines()
    assert lines[0].startswith("policy,scaffold,n,medal_rate_mean,medal_rate_sem,medal_rate_relative")
    assert len(lines) == 5
    with pytest.raises(UsageError, match="^baseline: "):
        transfer_report(episodes, baseline="nope")
