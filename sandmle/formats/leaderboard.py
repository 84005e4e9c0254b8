"""MLE-bench's medal rules over a leaderboard, and a leaderboard built so those rules give back a task's thresholds."""

from __future__ import annotations

import statistics

from sandmle.errors import UsageError

# Ten teams: under MLE-bench's rules for N < 100, gold, silver and bronze are the scores at positions 1, 2 and 4,
# and the median is the mean of positions 5 and 6, so each of our thresholds is written once, exactly, at its place.
TEAMS = 10


def medal_positions(teams: int) -> tuple[int, int, int]:
    """The 1-based positions whose scores are MLE-bench's gold, silver and bronze thresholds for `teams` teams."""
    if teams < 1:
        raise UsageError("leaderboard: it has no scores")
    if teams < 100:
        return max(1, int(teams * 0.1)), max(1, int(teams * 0.2)), max(1, int(teams * 0.4))
    if teams < 250:
        return 10, max(1, int(teams * 0.2)), max(1, int(teams * 0.4))
    if teams < 1000:
        return 10 + int(teams * 0.002), 50, 100
    return 10 + int(teams * 0.002), int(teams * 0.05), int(teams * 0.1)


def thresholds_from_leaderboard(scores: list[float]) -> dict:
    """MLE-bench's reading of a leaderboard listed best first: direction, the medal thresholds and the median."""
    scores = [float(score) for score in scores]
    gold, silver, bronze = medal_positions(len(scores))
    return {"is_lower_better": scores[0] < scores[-1], "gold": scores[gold - 1], "silver": scores[silver - 1],
            "bronze": scores[bronze - 1], "median": float(statistics.median(scores))}


def leaderboard_for(milestones: dict, *, is_lower_better: bool) -> list[float]:
    """Ten scores, best first, on which MLE-bench's rules give exactly these gold/silver/bronze/median thresholds."""
    gold, silver, bronze, median = (float(milestones[name]) for name in ("gold", "silver", "bronze", "median"))
    worse = 1.0 if is_lower_better else -1.0
    # The teams below the median step away from it so that the first and last scores show the direction.
    step = abs(gold - median) / 4 or max(abs(median), 1.0) * 1e-3
    scores = [gold, silver, (silver + bronze) / 2, bronze, median, median]
    scores += [median + worse * step * k for k in range(1, TEAMS - len(scores) + 1)]
    return scores
