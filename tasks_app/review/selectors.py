"""Reads of the review workflow: the filtered queue, comment threads a user may read, audit history, saved views."""

from __future__ import annotations

from django.db.models import Case, Count, Exists, F, OuterRef, Prefetch, Q, QuerySet, Value, When

from accounts.roles import Role, has_role
from tasks_app.models import ReviewComment, ReviewDecision, SavedReviewView, SynthesizedTask, TaskAuditEntry
from tasks_app.review.forms import ThreadCommentForm
from tasks_app.shared.reason_visibility import blank_hidden_reasons
from tasks_app.tasks.selectors import task_list, task_list_rows


def review_queue_rows() -> QuerySet[SynthesizedTask]:
    """Every task with its approvals in the current round, oldest first; callers filter (review_filters)."""
    approvals = Count("decisions__reviewer", distinct=True,
                      filter=Q(decisions__verdict="approve", decisions__review_round=F("review_round")))
    # The spec and the synthesis log are a task's heavy JSON; no queue row shows them.
    return task_list().defer("spec", "log").annotate(approvals=approvals).order_by("created_at", "task_id")


def _visible(comments: QuerySet[ReviewComment], user) -> QuerySet[ReviewComment]:
    if has_role(user, Role.REVIEWER):
        return comments
    return comments.filter(visibility=ReviewComment.Visibility.EVERYONE)


def comment_threads(*, task: SynthesizedTask, user, trajectory=None, turn: int | None = None) -> list[ReviewComment]:
    """The threads on the task (or on one trajectory, or one turn of it) that `user` may read, each root with
    `.thread_replies`; two queries whatever the number of threads."""
    roots = ReviewComment.objects.filter(task=task, parent__isnull=True)
    roots = roots.filter(trajectory=trajectory) if trajectory is not None else roots.filter(trajectory__isnull=True)
    if turn is not None:
        roots = roots.filter(turn=turn)
    replies = _visible(ReviewComment.objects.select_related("author"), user).order_by("created_at", "id")
    roots = _visible(roots, user).select_related("author", "resolved_by").prefetch_related(
        Prefetch("replies", queryset=replies, to_attr="thread_replies"))
    return list(roots.order_by("created_at", "id"))


def turn_threads(*, trajectory, user) -> dict[int, list[ReviewComment]]:
    """The readable threads on each turn of a trajectory, by turn index."""
    by_turn: dict[int, list[ReviewComment]] = {}
    for thread in comment_threads(task=trajectory.task, user=user, trajectory=trajectory):
        by_turn.setdefault(thread.turn, []).append(thread)
    return by_turn


def audit_history(*, task: SynthesizedTask, user) -> list[TaskAuditEntry]:
    """The task's status and assignment changes, oldest first; the reasons a person typed blanked for non-reviewers
    (tasks_app.shared.reason_visibility)."""
    return blank_hidden_reasons(task.audit_entries.select_related("actor"), user=user)


def saved_views_for(*, user) -> QuerySet[SavedReviewView]:
    return SavedReviewView.objects.filter(owner=user)


def review_queue(*, assigned_to=None) -> QuerySet[SynthesizedTask]:
    """Tasks waiting for a person, oldest first; with `assigned_to`, only that reviewer's claimed ones."""
    queue = task_list_rows(status=SynthesizedTask.Status.PENDING_REVIEW).order_by("created_at", "task_id")
    return queue.filter(assigned_to=assigned_to) if assigned_to is not None else queue


def review_next_task(*, user, after: SynthesizedTask | None = None) -> SynthesizedTask | None:
    """The next task waiting on `user`: pending review, claimed by them or by nobody, not approved by them in its
    current round (a quorum needs other people); their own claims first, then the oldest. None when nothing waits."""
    approved_by_user = ReviewDecision.objects.filter(task=OuterRef("pk"), reviewer=user, verdict="approve",
                                                     review_round=OuterRef("review_round"))
    waiting = (SynthesizedTask.objects.filter(status=SynthesizedTask.Status.PENDING_REVIEW)
               .filter(Q(assigned_to=user) | Q(assigned_to__isnull=True)).exclude(Exists(approved_by_user))
               .annotate(claimed_by_other=Case(When(assigned_to=user, then=Value(0)), default=Value(1)))
               .order_by("claimed_by_other", "created_at", "task_id").only("id", "task_id"))
    if after is not None:
        waiting = waiting.exclude(pk=after.pk)
    return waiting.first()


def task_comments_for(*, task: SynthesizedTask, user) -> QuerySet[ReviewComment]:
    """The comments on a task that `user` may read: reviewers read all, everyone else only those shared with all."""
    comments = task.comments.select_related("author")
    if has_role(user, Role.REVIEWER):
        return comments
    return comments.filter(visibility=ReviewComment.Visibility.EVERYONE)


def turn_comment_context(*, trajectory, user) -> dict:
    """The trajectory page's turn comments: each turn with the threads the user may read."""
    by_turn = turn_threads(trajectory=trajectory, user=user)
    return {"turn_rows": [(turn, by_turn.get(turn, [])) for turn in range(max(trajectory.n_records, 1))],
            "thread_form": ThreadCommentForm(), "may_comment": has_role(user, Role.REVIEWER)}
