"""A task's difficulty read off its headroom, and the curator's acceptance targets (a least headroom, a difficulty)
that a task passing the critic must also meet; the studio labels and filters tasks with the same bands."""

from __future__ import annotations

# The critic already rejects tasks whose ensemble reaches the oracle (headroom near 1) and whose skilled reference
# recovers under 0.3, so validated tasks fall between; these cut points split that range in three.
EASY_FROM = 0.75
MEDIUM_FROM = 0.5
DIFFICULTIES = ("easy", "medium", "hard")


def difficulty_of(headroom: float) -> str:
    """'easy', 'medium' or 'hard' for a headroom: how much of the oracle's lead the learned references recover."""
    if headroom >= EASY_FROM:
        return "easy"
    if headroom >= MEDIUM_FROM:
        return "medium"
    return "hard"


def check_targets(*, min_headroom: float | None = None, difficulty: str | None = None) -> None:
    """Refuse targets no task can meet: a headroom outside 0 to 1, a difficulty not in DIFFICULTIES."""
    if min_headroom is not None and not 0 <= min_headroom <= 1:
        raise ValueError(f"min_headroom {min_headroom} is outside 0 to 1")
    if difficulty and difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")


def target_reasons(headroom: float | None, *, min_headroom: float | None = None, difficulty: str | None = None) -> list[str]:
    """Why a task that passed the critic still misses the curator's targets (empty when it meets them)."""
    if min_headroom is None and not difficulty:
        return []
    if headroom is None:
        return ["no calibration ladder to measure the headroom the targets ask for"]
    reasons = []
    if min_headroom is not None and headroom < min_headroom:
        reasons.append(f"target missed: headroom {headroom:.2f} below the chosen {min_headroom:g}")
    if difficulty and difficulty_of(headroom) != difficulty:
        reasons.append(f"target missed: {difficulty_of(headroom)} (headroom {headroom:.2f}), not the chosen {difficulty}")
    return reasons
