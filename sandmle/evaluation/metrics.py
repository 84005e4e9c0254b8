"""Campaign metrics: mean with standard error over seeds, the unbiased best-of-k estimator, HumanRank, per-cell metrics."""

from __future__ import annotations

import math
from collections import defaultdict

from sandmle.errors import UsageError
from sandmle.tasks.grade_report import stored_grade
from sandmle.tasks.grading import position_score

# Rates are taken per seed over the cell's tasks, then averaged over seeds, as MLE-bench reports them (mean ± SEM of
# seeds); the others are per-episode figures averaged the same way.
RATE_FIELDS = {
    "medal_rate": "any_medal",
    "gold_rate": "gold_medal",
    "silver_rate": "silver_medal",
    "bronze_rate": "bronze_medal",
    "valid_rate": "valid_submission",
    "above_median_rate": "above_median",
}
METRICS = (*RATE_FIELDS, "human_rank", "mean_turns", "mean_tokens", "mean_wall_s")


def outcome_rates(grades, names=("valid_rate", "medal_rate")) -> dict[str, float]:
    """The share of grades (GradeReports or their stored dicts; None counts as an empty one) with each outcome in
    `names`, keys of RATE_FIELDS; 0.0 each over no grades. The one place a rollout summary, a GRPO step, its eval and a
    campaign count:

    - valid: the grader scored the submission (`valid_submission`: it exists and passed the format checks);
    - medal: the score reached at least the bronze threshold (`any_medal`: gold, silver or bronze).
    """
    reports = [stored_grade(grade) for grade in grades]
    return {name: sum(report is not None and bool(getattr(report, RATE_FIELDS[name])) for report in reports)
            / len(reports) if reports else 0.0
            for name in names}


def mean_sem(values) -> tuple[float | None, float | None]:
    """Mean and standard error of the mean (sample standard deviation / sqrt(n)); SEM 0.0 for one value, both None for none."""
    values = [float(value) for value in values]
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


def _success_probability(n: int, c: int, k: int) -> float:
    """P(at least one of k samples drawn without replacement from n, c of them successes, succeeds) = 1 - C(n-c,k)/C(n,k)."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def best_of_k(successes_per_task: list[list[bool]], k: int) -> float:
    """The unbiased best-of-k success rate (the pass@k estimator) averaged over tasks, from each task's n repeats."""
    if not successes_per_task:
        raise UsageError("best_of_k: no tasks given")
    if k < 1:
        raise UsageError(f"k: {k} must be at least 1")
    shortest = min(len(samples) for samples in successes_per_task)
    if k > shortest:
        raise UsageError(f"k: {k} is more than the {shortest} repeats of a task")
    return sum(_success_probability(len(s), sum(map(bool, s)), k) for s in successes_per_task) / len(successes_per_task)


def human_rank(score: float | None, leaderboard_scores, is_lower_better: bool) -> float:
    """MLE-Dojo's position score (N - p + 1) / N of a score on a leaderboard of N scores (grading's rule, ties included)."""
    return position_score(score, list(leaderboard_scores), is_lower_better=is_lower_better)


def episode_tokens(trajectory: dict) -> int:
    """Tokens the policy produced in an episode (its completion ids)."""
    return sum(len(record.get("completion_ids") or []) for record in trajectory.get("tokens") or [])


# Policy calls that serve a turn rather than take one: a tree node's review of its run, MLE-Agent's repair of a
# malformed reply, and the re-asks of a reply that had no plan or code.
HELPER_CALLS = frozenset({"review", "repair"})


def is_turn(turn: dict) -> bool:
    """A policy reply that takes one of the episode's `max_turns` (ReAct and MLE-Agent: an action; AIDE, AIRA: a node)."""
    kind = str(turn.get("kind") or "")
    return turn.get("role") == "assistant" and kind not in HELPER_CALLS and not kind.endswith("_retry")


def episode_turns(trajectory: dict) -> int:
    """The turns an episode took, the unit `max_turns` bounds: what every page and table calls "turns"."""
    return sum(1 for turn in trajectory.get("turns") or [] if is_turn(turn))


def policy_calls(trajectory: dict) -> int:
    """Every reply the policy wrote, helper calls (reviews, repairs, re-asks) included."""
    return sum(1 for turn in trajectory.get("turns") or [] if turn.get("role") == "assistant")


def _episode_values(episode: dict) -> dict[str, float]:
    report = stored_grade(episode.get("report"))
    trajectory = episode.get("trajectory") or {}
    values = outcome_rates([report], names=RATE_FIELDS)
    values["human_rank"] = float(report.position_score or 0.0) if report is not None else 0.0
    values["mean_turns"] = float(episode_turns(trajectory))
    values["mean_tokens"] = float(episode_tokens(trajectory))
    values["mean_wall_s"] = float(trajectory.get("wall_s") or 0.0)
    return values


def cell_metrics(episodes: list[dict]) -> dict:
    """Every metric of one policy x scaffold cell as mean ± SEM over seeds, and the best-of-k medal rate for k = 1..n."""
    by_seed: dict[int, list[dict]] = defaultdict(list)
    by_task: dict[str, list[bool]] = defaultdict(list)
    for episode in episodes:
        by_seed[int(episode["seed"])].append(_episode_values(episode))
        report = stored_grade(episode.get("report"))
        by_task[str(episode["task_id"])].append(report is not None and bool(report.any_medal))
    metrics = {}
    for name in METRICS:
        per_seed = [sum(values[name] for values in rows) / len(rows) for _, rows in sorted(by_seed.items())]
        mean, sem = mean_sem(per_seed)
        metrics[name] = {"mean": mean, "sem": sem}
    repeats = min((len(samples) for samples in by_task.values()), default=0)
    return {
        "n": len(episodes),
        "metrics": metrics,
        "best_of_k": [{"k": k, "medal_rate": best_of_k(list(by_task.values()), k)} for k in range(1, repeats + 1)],
    }
