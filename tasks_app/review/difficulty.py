"""A task's difficulty for the review queue, read off its calibration ladder: how much of the oracle's lead over the
baseline the learned reference solutions recover (the engine's headroom)."""

from __future__ import annotations

from sandmle.metrics import get_metric
from sandmle.synth.calibrate import headroom

# The critic already rejects tasks whose ensemble reaches the oracle (headroom near 1) and whose skilled reference
# recovers under 0.3, so validated tasks fall between; these cut points split that range in three.
EASY_FROM = 0.75
MEDIUM_FROM = 0.5


def headroom_of(*, ladder: dict, metric: str) -> float | None:
    """The engine's headroom of a task's ladder; None when the ladder lacks the references or the metric is unknown."""
    if not ladder or "oracle" not in ladder or "baseline" not in ladder:
        return None
    try:
        return headroom(ladder, is_lower_better=get_metric(metric).is_lower_better)
    except (KeyError, ValueError, TypeError):
        return None


def task_difficulty(*, ladder: dict, metric: str) -> str:
    """'easy', 'medium' or 'hard'; '' when the ladder lacks the references or the metric is unknown."""
    recovered = headroom_of(ladder=ladder, metric=metric)
    if recovered is None:
        return ""
    if recovered >= EASY_FROM:
        return "easy"
    if recovered >= MEDIUM_FROM:
        return "medium"
    return "hard"
