"""What the training side shows on tasks_app's pages, handed over by training_app when it loads.

training_app builds on tasks_app (its rows point at tasks and task sets), so tasks_app imports nothing of it: a task
page's rollout stats and degenerate scores, a task set's audit panel and a trajectory's turn comments ask these hooks,
which training_app's AppConfig.ready() fills in (training_app/apps.py).
"""

from __future__ import annotations

from typing import Callable

HOOK_NAMES = frozenset({"trajectories", "degenerate_scores", "last_audit", "last_audits", "failing_verdicts",
                        "stale_lines"})

_hooks: dict[str, Callable] = {}


def register(**hooks: Callable) -> None:
    """Called once by training_app when Django loads it, with a callable for each of HOOK_NAMES."""
    unknown = set(hooks) - HOOK_NAMES
    if unknown:
        raise ValueError(f"unknown training hooks {sorted(unknown)}; expected some of {sorted(HOOK_NAMES)}")
    _hooks.update(hooks)


def _hook(name: str) -> Callable:
    try:
        return _hooks[name]
    except KeyError:
        raise LookupError(f"training hook {name!r} is not registered: is training_app in INSTALLED_APPS?") from None


def trajectories():
    """Every trajectory (a QuerySet of training_app's Trajectory)."""
    return _hook("trajectories")()


def degenerate_scores(*, task_id: str) -> list:
    """The task's degenerate-solution scores from the newest finished audit that graded it."""
    return _hook("degenerate_scores")(task_id=task_id)


def last_audit(*, task_set):
    """The set's newest audit that ran to its end, or None."""
    return _hook("last_audit")(task_set=task_set)


def last_audits(task_sets) -> dict:
    """The newest finished audit of each set, by set id."""
    return _hook("last_audits")(task_sets)


def failing_verdicts(*, audit, limit: int = 20):
    """The audit's first `limit` failing cases."""
    return _hook("failing_verdicts")(audit=audit, limit=limit)


def stale_lines(*, audit, task_set) -> list[str]:
    """The tasks added, changed or removed since the audit played them."""
    return _hook("stale_lines")(audit=audit, task_set=task_set)
