"""Writes of the review workflow: decisions with reasons, the approval quorum, assignments, bulk actions, threaded and
turn comments, and the audit entry every status or assignee change leaves.

The quorum rule: a task is approved once `settings.SANDMLE_REVIEW_MIN_APPROVALS` distinct reviewers approved it in
its current review round (the same reviewer approving twice counts once). A reject or a request for changes ends the
round at once, whatever approvals it had: those approvals stay in the history but no longer count. A task whose
changes were requested goes back to review (`review_reopen`) in a new round that starts with no approvals.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError
from tasks_app.frontier.joining import successor_approved
from tasks_app.models import ReviewComment, ReviewDecision, SavedReviewView, SynthesizedTask, TaskAuditEntry

Status = SynthesizedTask.Status
Verdict = ReviewDecision.Verdict
Via = TaskAuditEntry.Via
MAX_REASON_CHARS = 5000
BULK_MAX_TASKS = 200
# The status a verdict moves a pending task to (an approval only once the quorum is reached).
VERDICT_STATUS = {Verdict.APPROVE: Status.APPROVED, Verdict.REJECT: Status.REJECTED,
                  Verdict.REQUEST_CHANGES: Status.NEEDS_CHANGES}
# The verdict a decision comment carries, in the words the task page has always shown.
VERDICT_COMMENT = {Verdict.APPROVE: "approved", Verdict.REJECT: "rejected", Verdict.REQUEST_CHANGES: "needs_changes"}


def audit_record(*, task: SynthesizedTask, actor, from_value: str, to_value: str, reason: str, via: str,
                 kind: str = TaskAuditEntry.Kind.STATUS) -> TaskAuditEntry:
    return TaskAuditEntry.objects.create(task=task, actor=actor if getattr(actor, "pk", None) else None, kind=kind,
                                         from_value=from_value or "", to_value=to_value or "", reason=reason, via=via)


def _clean_reason(reason: str, *, field: str = "reason") -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("give a reason: it goes into the task's audit history", field=field)
    if len(reason) > MAX_REASON_CHARS:
        raise ServiceError(f"keep the reason under {MAX_REASON_CHARS} characters", field=field)
    return reason


def _require_reviewer(user) -> None:
    if not has_role(user, Role.REVIEWER):
        raise ServiceError("deciding, assigning and commenting need the reviewer role", field="user")


def _locked(task: SynthesizedTask) -> SynthesizedTask:
    # The row lock serialises two reviewers approving at once on PostgreSQL, so neither misses the other's approval
    # when counting the quorum; SQLite serialises writers anyway. Only the task's row: PostgreSQL refuses FOR UPDATE on
    # the nullable side of the assignee's outer join.
    return SynthesizedTask.objects.select_for_update(of=("self",)).select_related("assigned_to").get(id=task.id)


def approvals_in_round(*, task: SynthesizedTask) -> int:
    return (ReviewDecision.objects.filter(task=task, review_round=task.review_round, verdict=Verdict.APPROVE)
            .values("reviewer").distinct().count())


@transaction.atomic
def review_decide(*, task: SynthesizedTask, user, verdict: str, reason: str, via: str = Via.REVIEW) -> SynthesizedTask:
    """Record one reviewer's verdict with its reason and move the task as the quorum rule says."""
    _require_reviewer(user)
    if verdict not in Verdict.values:
        raise ServiceError(f"expected one of {', '.join(Verdict.values)}", field="verdict")
    reason = _clean_reason(reason)
    task = _locked(task)
    if task.status != Status.PENDING_REVIEW:
        raise ServiceError(f"task {task.task_id} is {task.status}, not pending review", field="status")
    if task.assigned_to_id not in (None, user.id) and not has_role(user, Role.ADMIN):
        raise ServiceError(f"task {task.task_id} is claimed by {task.assigned_to.username}; only they or an admin "
                           f"may decide it", field="assigned_to")
    ReviewDecision.objects.create(task=task, reviewer=user, verdict=verdict, reason=reason,
                                  review_round=task.review_round)
    ReviewComment.objects.create(task=task, author=user, body=reason, verdict=VERDICT_COMMENT[verdict])
    if task.assigned_to_id is not None:
        # A decision ends the decider's claim: with a quorum above one, the next reviewer must be able to take it.
        audit_record(task=task, actor=user, from_value=task.assigned_to.username, to_value="", via=via,
                     reason="released by the claimant's decision", kind=TaskAuditEntry.Kind.ASSIGNMENT)
    updates = {"assigned_to": None}
    if verdict == Verdict.APPROVE and approvals_in_round(task=task) < settings.SANDMLE_REVIEW_MIN_APPROVALS:
        SynthesizedTask.objects.filter(id=task.id).update(**updates)
        task.refresh_from_db()
        return task
    new_status = VERDICT_STATUS[verdict]
    updates |= {"status": new_status, "reviewed_by": user, "reviewed_at": timezone.now(),
                "rejected_by": SynthesizedTask.RejectedBy.REVIEWER if new_status == Status.REJECTED else ""}
    SynthesizedTask.objects.filter(id=task.id, status=Status.PENDING_REVIEW).update(**updates)
    audit_record(task=task, actor=user, from_value=Status.PENDING_REVIEW, to_value=new_status, reason=reason, via=via)
    task.refresh_from_db()
    if new_status == Status.APPROVED and task.parent_id is not None:
        successor_approved(task=task)  # a frontier successor joins its run's new set
    return task


@transaction.atomic
def review_reopen(*, task: SynthesizedTask, user, reason: str) -> SynthesizedTask:
    """Send a task whose changes were requested, or an approved one withdrawn, back to review, in a new round with
    no approvals yet."""
    _require_reviewer(user)
    reason = _clean_reason(reason)
    task = _locked(task)
    if task.status not in (Status.NEEDS_CHANGES, Status.APPROVED):
        raise ServiceError(f"task {task.task_id} is {task.status}; only an approved task or one with changes "
                           f"requested is sent back to review", field="status")
    previous = task.status
    SynthesizedTask.objects.filter(id=task.id).update(status=Status.PENDING_REVIEW, review_round=task.review_round + 1)
    audit_record(task=task, actor=user, from_value=previous, to_value=Status.PENDING_REVIEW,
                 reason=reason, via=Via.REOPEN)
    task.refresh_from_db()
    return task


@transaction.atomic
def review_retire(*, task: SynthesizedTask, user, reason: str) -> SynthesizedTask:
    """Retire an approved task: it keeps its history and its place in existing sets, and joins no new set."""
    _require_reviewer(user)
    reason = _clean_reason(reason)
    task = _locked(task)
    if task.status != Status.APPROVED:
        raise ServiceError(f"task {task.task_id} is {task.status}; only an approved task is retired", field="status")
    SynthesizedTask.objects.filter(id=task.id).update(status=Status.RETIRED)
    audit_record(task=task, actor=user, from_value=Status.APPROVED, to_value=Status.RETIRED, reason=reason,
                 via=Via.RETIRE)
    task.refresh_from_db()
    return task


def reviewer_by_username(username: str):
    """The active user with the reviewer role named `username`; assignees must be able to decide."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None or not has_role(user, Role.REVIEWER):
        raise ServiceError(f"{username[:150]!r} is not a reviewer; only reviewers can be assigned", field="assignee")
    return user


@transaction.atomic
def review_assign(*, task: SynthesizedTask, user, assignee, reason: str = "", via: str = Via.REVIEW) -> SynthesizedTask:
    """Assign a pending task to a reviewer (the actor or another), or unassign it with assignee=None.

    Only an unassigned task, or one assigned to the actor, changes hands, unless the actor is an admin: a claim is
    not taken away by a peer.
    """
    _require_reviewer(user)
    if assignee is not None and not has_role(assignee, Role.REVIEWER):
        raise ServiceError(f"{assignee.username!r} is not a reviewer; only reviewers can be assigned", field="assignee")
    task = _locked(task)
    if task.status != Status.PENDING_REVIEW:
        raise ServiceError(f"task {task.task_id} is {task.status}, not open for assignment", field="status")
    if task.assigned_to_id not in (None, user.id) and not has_role(user, Role.ADMIN):
        raise ServiceError(f"task {task.task_id} is assigned to {task.assigned_to.username}; only they or an admin "
                           f"may reassign it", field="assignee")
    if task.assigned_to_id == getattr(assignee, "id", None):
        return task
    SynthesizedTask.objects.filter(id=task.id).update(assigned_to=assignee)
    audit_record(task=task, actor=user, from_value=getattr(task.assigned_to, "username", ""),
                 to_value=getattr(assignee, "username", ""), reason=(reason or "").strip(), via=via,
                 kind=TaskAuditEntry.Kind.ASSIGNMENT)
    task.refresh_from_db()
    return task


BULK_ACTIONS = ("approve", "reject", "request_changes", "assign")


def review_bulk(*, task_ids: list[str], user, action: str, reason: str, assignee=None) -> dict[str, str]:
    """Apply one action with one reason to each selected task; {task_id: "ok" or why it was refused}.

    Each task is its own transaction: one task decided meanwhile by someone else does not undo the rest.
    """
    _require_reviewer(user)
    if action not in BULK_ACTIONS:
        raise ServiceError(f"expected one of {', '.join(BULK_ACTIONS)}", field="action")
    if not task_ids:
        raise ServiceError("select at least one task", field="task_ids")
    if len(task_ids) > BULK_MAX_TASKS:
        raise ServiceError(f"select at most {BULK_MAX_TASKS} tasks at once", field="task_ids")
    if action != "assign":
        reason = _clean_reason(reason)
    tasks = {task.task_id: task for task in SynthesizedTask.objects.filter(task_id__in=task_ids)}
    outcome = {}
    for task_id in dict.fromkeys(task_ids):
        task = tasks.get(task_id)
        if task is None:
            outcome[task_id] = "no such task"
            continue
        try:
            if action == "assign":
                review_assign(task=task, user=user, assignee=assignee, reason=reason, via=Via.BULK)
            else:
                review_decide(task=task, user=user, verdict=action, reason=reason, via=Via.BULK)
            outcome[task_id] = "ok"
        except ServiceError as error:
            outcome[task_id] = str(error)
    return outcome


def comment_add(*, task: SynthesizedTask, user, body: str, visibility: str = ReviewComment.Visibility.REVIEWERS,
                parent: ReviewComment | None = None, trajectory=None, turn: int | None = None) -> ReviewComment:
    """A comment on the task, or on one turn of one of its trajectories; with `parent`, a reply in that thread."""
    _require_reviewer(user)
    body = (body or "").strip()
    if not body:
        raise ServiceError("a comment needs some text", field="body")
    if len(body) > MAX_REASON_CHARS:
        raise ServiceError(f"keep a comment under {MAX_REASON_CHARS} characters", field="body")
    if visibility not in ReviewComment.Visibility.values:
        raise ServiceError(f"expected one of {', '.join(ReviewComment.Visibility.values)}", field="visibility")
    if parent is not None:
        if parent.task_id != task.id:
            raise ServiceError("the comment replied to belongs to another task", field="parent")
        parent = parent.parent or parent  # threads stay one level deep: a reply to a reply joins the thread
        trajectory, turn = parent.trajectory, parent.turn
        if parent.visibility == ReviewComment.Visibility.REVIEWERS:
            # Shown to everyone, a reply would carry a reviewers-only thread's context out of it.
            visibility = ReviewComment.Visibility.REVIEWERS
    if trajectory is not None:
        if trajectory.task_id != task.id:
            raise ServiceError("the trajectory belongs to another task", field="trajectory")
        if turn is None or not 0 <= turn < max(trajectory.n_records, 1):
            raise ServiceError(f"expected a turn from 0 to {max(trajectory.n_records, 1) - 1}", field="turn")
    elif turn is not None:
        raise ServiceError("a turn comment names its trajectory", field="trajectory")
    return ReviewComment.objects.create(task=task, author=user, body=body, visibility=visibility, parent=parent,
                                        trajectory=trajectory, turn=turn)


def comment_resolve(*, comment: ReviewComment, user, resolved: bool = True) -> ReviewComment:
    """Resolve (or reopen) a thread; a reply resolves the thread it belongs to."""
    _require_reviewer(user)
    root = comment.parent or comment
    ReviewComment.objects.filter(id=root.id).update(resolved_at=timezone.now() if resolved else None,
                                                    resolved_by=user if resolved else None)
    root.refresh_from_db()
    return root


def saved_view_save(*, user, name: str, filters: dict) -> SavedReviewView:
    """Save (or overwrite) the user's named set of queue filters; the filters are checked as the queue checks them."""
    from tasks_app.review.filters import FILTER_NAMES, ReviewQueueFilter

    _require_reviewer(user)
    name = (name or "").strip()
    if not name or len(name) > 80:
        raise ServiceError("name the view in 1 to 80 characters", field="name")
    kept = {key: str(value) for key, value in (filters or {}).items() if key in FILTER_NAMES and str(value).strip()}
    checked = ReviewQueueFilter(data=kept, queryset=SynthesizedTask.objects.none())
    if not checked.is_valid():
        field, messages = next(iter(checked.errors.items()))
        raise ServiceError(f"{field}: {' '.join(messages)}", field="filters")
    view, _ = SavedReviewView.objects.update_or_create(owner=user, name=name, defaults={"filters": kept})
    return view


def saved_view_delete(*, user, view_id: int) -> None:

    if SavedReviewView.objects.filter(owner=user, id=view_id).delete()[0] == 0:
        raise ServiceError("no saved view of yours has that id", field="id")


# Approve, reject, claim and comment keep their signatures for the callers that predate the review workflow (the demo,
# fixtures, the first API routes); they go through the functions above, so the quorum and the audit hold there.
def task_approve(*, task: SynthesizedTask, user, comment: str = "") -> SynthesizedTask:
    return review_decide(task=task, user=user, verdict="approve", reason=comment or "Approved.")


def task_reject(*, task: SynthesizedTask, user, reason: str) -> SynthesizedTask:
    if not reason.strip():
        raise ServiceError("say why the task is rejected", field="reason")
    return review_decide(task=task, user=user, verdict="reject", reason=reason)


def task_assign(*, task: SynthesizedTask, user) -> SynthesizedTask:
    """A reviewer claims a pending task so others skip it in the queue (re-claiming one's own is fine)."""
    task.refresh_from_db(fields=["assigned_to", "status"])
    if task.assigned_to_id not in (None, user.id):  # a claim is taken, never taken over (admins reassign instead)
        raise ServiceError(f"task {task.task_id} is not open for claiming", field="status")
    return review_assign(task=task, user=user, assignee=user, reason="claimed")


def task_comment_add(
    *, task: SynthesizedTask, user, body: str, visibility: str = ReviewComment.Visibility.REVIEWERS
) -> ReviewComment:
    return comment_add(task=task, user=user, body=body, visibility=visibility)
