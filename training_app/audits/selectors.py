"""Reads of task-set audits: lists, a set's last audit, the launch warning, counts per family x scaffold, a task's
degenerate scores."""

from __future__ import annotations

from pathlib import Path

from urllib.parse import urlencode

from django.db.models import QuerySet
from django.urls import reverse

from sandmle_web.jobs import JobState
from tasks_app.models import TaskSet
from training_app.audits.models import AuditVerdict, DegenerateScore, TaskSetAudit


def audit_list() -> QuerySet[TaskSetAudit]:
    return TaskSetAudit.objects.select_related("task_set").order_by("-created_at", "-id")


def audit_get(*, audit_id: int) -> TaskSetAudit:
    return TaskSetAudit.objects.select_related("task_set", "created_by").get(id=audit_id)


def last_audit(*, task_set: TaskSet) -> TaskSetAudit | None:
    """The set's newest audit that ran to its end (a queued, running or cancelled one proves nothing yet)."""
    return TaskSetAudit.objects.filter(task_set=task_set, state=JobState.SUCCEEDED).order_by("-created_at", "-id").first()


def last_audits(task_sets) -> dict[int, TaskSetAudit]:
    """The newest finished audit of each set, by set id, in one query."""
    found: dict[int, TaskSetAudit] = {}
    rows = TaskSetAudit.objects.filter(task_set__in=task_sets, state=JobState.SUCCEEDED).order_by("-created_at", "-id")
    for audit in rows.only("id", "task_set_id", "passed", "summary", "finished_at", "created_at"):
        found.setdefault(audit.task_set_id, audit)
    return found


def failing_verdicts(*, audit: TaskSetAudit, limit: int = 20) -> QuerySet[AuditVerdict]:
    return audit.verdicts.filter(passed=False).order_by("task_id", "scaffold", "attack")[:limit]


def current_digests(task_set: TaskSet) -> dict[str, str]:
    """Each task of the set with the digest of its bundle's files as they are now."""
    from sandmle.audit.coverage import bundle_digest

    return {task.task_id: bundle_digest(Path(task.bundle_dir))
            for task in task_set.tasks.only("task_id", "bundle_dir")}


def stale_lines(*, audit: TaskSetAudit, task_set: TaskSet) -> list[str]:
    """The tasks added, changed or removed since the audit played them: the set page's and the API's "stale"."""
    from sandmle.audit.coverage import stale_tasks

    from sandmle.audit.coverage import COVERAGE_VERSION, RECORDED_BEFORE

    if not audit.coverage:
        return []
    if audit.coverage.get("version", 1) < COVERAGE_VERSION:  # its digests were taken over fewer files
        return [RECORDED_BEFORE]
    return stale_tasks(audit.coverage, current_digests(task_set))


def audit_warning(*, task_set: TaskSet, play, role: str = "") -> str:
    """Why training on this set, playing as `play` (sandmle.audit.coverage.PlaySettings) does, is not known to be
    safe; "" when its newest audit passed and covered the run: every attack, the scaffold with its options, the
    feedback, the reward and its judge, exactly the set's tasks at their current bytes. `role` ("evaluation ")
    names which of the run's sets this is."""
    from sandmle.audit.coverage import coverage_gaps

    audit = last_audit(task_set=task_set)
    if audit is None:
        return f"{role}task set {task_set.name} was never audited for reward hacks"
    if not audit.passed:
        failing = audit.summary.get("failing", 0)
        broken = len(audit.summary.get("broken_tasks", []))
        verdict = audit.summary.get("verdict", "").removeprefix("failed · ")
        cases = sorted({f"{attack} on {scaffold}" for attack, scaffold in
                        audit.verdicts.filter(passed=False).values_list("attack", "scaffold")[:20]})
        return (f"the last audit of {role}task set {task_set.name} (#{audit.id}) failed: {failing} failing case(s)"
                + (f" ({', '.join(cases[:3])})" if cases else "") + f", {broken} broken task(s)"
                + (f" ({verdict})" if broken and verdict else ""))
    gaps = coverage_gaps(audit.coverage, play=play, tasks=current_digests(task_set))
    if gaps:
        shown = "; ".join(gaps[:4]) + (f"; and {len(gaps) - 4} more" if len(gaps) > 4 else "")
        return f"the last audit of {role}task set {task_set.name} (#{audit.id}) does not cover this run: {shown}"
    return ""


def audit_prefill_url(*, task_set: str, settings: dict) -> str:
    """The audit form's address, filled to play as a run with these settings (scaffold, scaffold_options,
    feedback) plays, on `task_set`: the launch form's and the run page's "audit these settings"."""
    scaffold = settings.get("scaffold") or "react"
    query = [("task_set", task_set), ("scaffolds", scaffold)]
    options = settings.get("scaffold_options") or {}
    if options:
        query.append(("scaffold_options", "\n".join(
            f"{scaffold}.{key}={str(value).lower() if isinstance(value, bool) else value}"
            for key, value in options.items())))
    # The public score is what the attacks play by themselves; any other mode is asked for by name.
    if settings.get("feedback") and settings["feedback"] != "score":
        query.append(("feedback", settings["feedback"]))
    return reverse("audit-list") + "?" + urlencode(query)


def family_scaffold_summary(*, audit: TaskSetAudit) -> list[dict]:
    """Contained and failing cases per attack family x scaffold, the degenerate solutions as their own row."""
    from sandmle.audit.summary import family_scaffold_counts

    return family_scaffold_counts(audit.verdicts.values("family", "scaffold", "passed"),
                                  degenerate=audit.degenerate_scores.values("task_id", "solution"),
                                  broken=(audit.summary or {}).get("broken_tasks", []))


def degenerate_scores(*, task_id: str) -> list[DegenerateScore]:
    """The task's degenerate-solution scores from the newest finished audit that graded it."""
    newest = (DegenerateScore.objects.filter(task_id=task_id, audit__state=JobState.SUCCEEDED)
              .order_by("-audit__created_at", "-audit_id").values_list("audit_id", flat=True).first())
    if newest is None:
        return []
    return list(DegenerateScore.objects.filter(task_id=task_id, audit_id=newest).select_related("audit")
                .order_by("solution"))
