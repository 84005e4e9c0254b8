"""Which written reasons only reviewers may read: the one list every page, API and export of the task side consults.

A reason a person writes while reviewing (a decision, a bulk action, sending a task back, an assignment, retiring a
task or a set) may quote the hidden rule; viewers and curators read who, when and from what to what, never the text.
Machine-written reasons (the critic's, a regeneration's, a frontier run's level) say nothing the task page hides.
"""

from __future__ import annotations

from accounts.roles import Role, has_role
from tasks_app.review.models import TaskAuditEntry
from tasks_app.task_sets.models import TaskSetChange

Via = TaskAuditEntry.Via
REVIEWER_ONLY_REASON_VIA = frozenset({Via.REVIEW, Via.BULK, Via.REOPEN, Via.RETIRE})
# Stored by jobs, not typed by a person; every Via is in exactly one of the two lists (tests hold it so).
MACHINE_REASON_VIA = frozenset({Via.SYNTHESIS, Via.REGENERATE, Via.FRONTIER})
# The task-set history's changes whose `details["reason"]` a person typed.
REVIEWER_ONLY_SET_CHANGES = frozenset({TaskSetChange.What.RETIRED})


def reason_hidden(*, via: str, kind: str, user) -> bool:
    """True when `user` may not read the reason of an audit entry made `via` (of `kind`); assignments always count as
    a reviewer's words, whichever way they were made."""
    if has_role(user, Role.REVIEWER):
        return False
    # A via in neither list (a new one nobody classified) is hidden: a leak is worse than a blank.
    return via in REVIEWER_ONLY_REASON_VIA or kind == TaskAuditEntry.Kind.ASSIGNMENT or via not in MACHINE_REASON_VIA


def blank_hidden_reasons(entries, *, user) -> list[TaskAuditEntry]:
    """The audit entries with the reasons `user` may not read blanked (in memory; nothing is saved)."""
    entries = list(entries)
    for entry in entries:
        if reason_hidden(via=entry.via, kind=entry.kind, user=user):
            entry.reason = ""
    return entries


def visible_set_change_details(change: TaskSetChange, *, user) -> dict:
    """A set change's details as `user` may read them: a typed reason only for reviewers."""
    details = dict(change.details or {})
    if change.what in REVIEWER_ONLY_SET_CHANGES and "reason" in details and not has_role(user, Role.REVIEWER):
        details["reason"] = ""
    return details
