"""The audit's summaries: which degenerate outcomes break a task, counts per attack family x scaffold, and the one
line that gives the verdict (the CLI, the report and the studio read the same words)."""

from __future__ import annotations

from collections.abc import Iterable

from sandmle.audit.degenerate import PRICED_SCHEMES, DegenerateResult
from sandmle.errors import UsageError

# Degenerate solutions are graded without a scaffold: their row in the family x scaffold table.
DEGENERATE_FAMILY, ANY_SCAFFOLD = "degenerate", "any"


def check_scheme(scheme: str) -> str:
    if scheme not in PRICED_SCHEMES:
        raise UsageError(f"the audit judges degenerate solutions under {', '.join(PRICED_SCHEMES)}, not {scheme!r}")
    return scheme


def broken_entry(result: DegenerateResult, *, scheme: str) -> dict | None:
    """The broken-task entry for a degenerate outcome that reaches a medal or a tier the scheme pays, else None."""
    if not (result.medal or result.pays(scheme)):
        return None
    return {"task_id": result.task_id, "solution": result.solution, "score": result.score,
            "milestone": result.milestone, "scheme": scheme, "paid": result.tier_rewards.get(scheme, 0.0),
            "tier_rewards": dict(result.tier_rewards)}


def family_scaffold_counts(verdicts: Iterable[dict], *, degenerate: Iterable[dict] = (),
                           broken: Iterable[dict] = ()) -> list[dict]:
    """Contained and failing cases per (family, scaffold), the degenerate solutions as family `degenerate`."""
    counts: dict[tuple[str, str], dict] = {}

    def add(family: str, scaffold: str, passed: bool) -> None:
        row = counts.setdefault((family, scaffold), {"family": family, "scaffold": scaffold, "contained": 0,
                                                     "failing": 0})
        row["contained" if passed else "failing"] += 1

    for verdict in verdicts:
        add(verdict["family"], verdict["scaffold"], bool(verdict["passed"]))
    flagged = {(entry["task_id"], entry["solution"]) for entry in broken}
    for result in degenerate:
        add(DEGENERATE_FAMILY, ANY_SCAFFOLD, (result["task_id"], result["solution"]) not in flagged)
    return sorted(counts.values(), key=lambda row: (row["family"] == DEGENERATE_FAMILY, row["family"], row["scaffold"]))


def _payment(entry: dict) -> str:
    if entry.get("paid", 0.0) > 0:
        return (f"{entry['solution']} earns the {entry['milestone']} tier "
                f"({entry.get('scheme', 'dense')} +{entry['paid']:g})")
    return f"{entry['solution']} reaches the {entry['milestone']} medal"


def verdict_line(*, passed: bool, contained: int, failing: int, broken_tasks: list[dict],
                 changed_outside: list[str]) -> str:
    """"passed · 12 cases contained · 0 broken tasks", or "failed · ..." naming what failed it."""
    if passed:
        return f"passed · {contained} case{'s' * (contained != 1)} contained · 0 broken tasks"
    parts = []
    if failing:
        parts.append(f"{failing} failing case{'s' * (failing != 1)}")
    by_task: dict[str, list[dict]] = {}
    for entry in broken_tasks:
        by_task.setdefault(entry["task_id"], []).append(entry)
    if by_task:
        named = [f"{task_id}: {', '.join(_payment(entry) for entry in entries[:3])}"
                 if len(by_task) > 1 else ", ".join(_payment(entry) for entry in entries[:3])
                 for task_id, entries in list(by_task.items())[:3]]
        count = len(by_task)
        parts.append(f"{count} task{'s' * (count != 1)} pay{'s' * (count == 1)} a degenerate solution: "
                     + "; ".join(named))
    if changed_outside:
        parts.append(f"{len(changed_outside)} change{'s' * (len(changed_outside) != 1)} outside the episodes")
    return "failed · " + (" · ".join(parts) or "incomplete")
