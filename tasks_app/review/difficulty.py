"""A task's difficulty for the review queue, read off its calibration ladder: how much of the oracle's lead over the
baseline the learned reference solutions recover (the engine's headroom), in the engine's bands (sandmle.synth.targets)."""

from __future__ import annotations

from sandmle.synth.calibrate import headroom
from sandmle.synth.targets import difficulty_of
from sandmle.tasks.metrics import get_metric


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
    return "" if recovered is None else difficulty_of(recovered)
