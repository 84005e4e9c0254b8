"""Pages of the review workflow: the filtered, paged queue with saved views and bulk actions, and the POST routes the
task page's review panel and the trajectory page's turn comments send to."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError, form_errors_from
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.models import ReviewComment, SynthesizedTask
from tasks_app.review import selectors as review_selectors
from tasks_app.review import services as review_services
from tasks_app.review.filters import FILTER_NAMES, UNASSIGNED, ReviewQueueFilter, reviewer_choices
from tasks_app.review.forms import BulkReviewForm, DecisionForm, ReasonForm, SavedViewForm, ThreadCommentForm
from tasks_app.shared import training_hooks
from tasks_app.tasks.rollout_stats import attach_rollout_stats

QUEUE_PER_PAGE = 50


def _queue_context(request, filterset, bulk_form, saved_form) -> dict:
    page = paginate(request, filterset.qs, per_page=QUEUE_PER_PAGE)
    page.object_list = attach_rollout_stats(page.object_list)
    current = {name: request.GET.get(name, "") for name in FILTER_NAMES}
    return {
        "page": page, "tasks": page.object_list, "filterset": filterset, "current": current,
        "saved_views": review_selectors.saved_views_for(user=request.user), "bulk_form": bulk_form,
        "saved_form": saved_form, "reviewers": reviewer_choices(), "unassigned": UNASSIGNED,
        "min_approvals": settings.SANDMLE_REVIEW_MIN_APPROVALS,
        "query": request.GET.urlencode(),
    }


@role_required(Role.REVIEWER)
@bad_page_is_400
def review_queue(request):
    """The queue; a POST applies a bulk action to the selected rows and comes back to the same filtered page."""
    params = request.GET.copy()
    if params.get("mine") == "1":  # the old "claimed by me" link
        params["assignee"] = request.user.username
    filterset = ReviewQueueFilter(data=params, queryset=review_selectors.review_queue_rows(), request=request)
    bulk_form, status = BulkReviewForm(reviewers=reviewer_choices()), 200
    if request.method == "POST":
        bulk_form = BulkReviewForm(request.POST, reviewers=reviewer_choices())
        if bulk_form.is_valid():
            data = bulk_form.cleaned_data
            try:
                assignee = review_services.reviewer_by_username(data["assignee"]) if data["assignee"] else None
                outcome = review_services.review_bulk(task_ids=data["task_ids"], user=request.user,
                                                      action=data["action"], reason=data["reason"], assignee=assignee)
            except ServiceError as error:
                form_errors_from(bulk_form, error)
            else:
                done = [task_id for task_id, result in outcome.items() if result == "ok"]
                messages.success(request, f"{data['action'].replace('_', ' ')}: {len(done)} of {len(outcome)} tasks")
                for task_id, result in outcome.items():
                    if result != "ok":
                        messages.error(request, f"{task_id}: {result}")
                return redirect(f"{reverse('review-queue')}?{request.GET.urlencode()}")
        status = 400
    filter_errors = {}
    if not filterset.is_valid():
        # The page still answers with the unfiltered queue, the 400 and each bad filter named above it.
        status, filter_errors = 400, dict(filterset.errors)
        filterset = ReviewQueueFilter(data={}, queryset=review_selectors.review_queue_rows(), request=request)
    context = _queue_context(request, filterset, bulk_form, SavedViewForm()) | {"filter_errors": filter_errors}
    return render(request, "tasks/review/review_queue.html", context, status=status)


@role_required(Role.REVIEWER)
@require_POST
def review_saved_view_save(request):
    form = SavedViewForm(request.POST)
    if form.is_valid():
        filters = {name: request.POST.get(name, "") for name in FILTER_NAMES}
        try:
            view = review_services.saved_view_save(user=request.user, name=form.cleaned_data["name"], filters=filters)
            messages.success(request, f"Saved view {view.name!r}.")
            return redirect(f"{reverse('review-queue')}?{_query(view.filters)}")
        except ServiceError as error:
            form.add_error(None, str(error))
    reason = "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())
    return render(request, "400.html", {"reason": reason, "back": reverse("review-queue")}, status=400)


@role_required(Role.REVIEWER)
@require_POST
def review_saved_view_delete(request, view_id):
    try:
        review_services.saved_view_delete(user=request.user, view_id=view_id)
    except ServiceError as error:
        return render(request, "400.html", {"reason": str(error)}, status=400)
    return redirect("review-queue")


def _query(filters: dict) -> str:
    from urllib.parse import urlencode

    return urlencode({key: value for key, value in filters.items() if value})


def review_panel_context(*, task: SynthesizedTask, user) -> dict:
    """What the task page's review panel shows: threads, audit history, this round's approvals."""
    return {
        "threads": review_selectors.comment_threads(task=task, user=user),
        "audit_entries": review_selectors.audit_history(task=task, user=user),
        "approvals": review_services.approvals_in_round(task=task),
        "min_approvals": settings.SANDMLE_REVIEW_MIN_APPROVALS,
        "reason_form": ReasonForm(),
        "reviewers": reviewer_choices() if has_role(user, Role.REVIEWER) else [],
    }


# Decisions that finish the reviewer's part on a task: they move on to the next one, as Label Studio's and Argilla's
# "next" do. Requesting changes keeps them on the task, where the thread with the curator goes on.
MOVES_ON = {"approve": "Approved", "reject": "Rejected"}


def after_decision(request, *, task: SynthesizedTask, verdict: str):
    """Where a decision sends the reviewer, with a message saying what was decided: the next task waiting on them,
    or the queue when none is left; back to the task itself for a verdict that does not move on."""
    if verdict not in MOVES_ON:
        return _back(task)
    said = f"{MOVES_ON[verdict]} {task.task_id}"
    if verdict == "approve" and task.status == SynthesizedTask.Status.PENDING_REVIEW:
        approvals = review_services.approvals_in_round(task=task)
        said += (f" ({approvals} of {settings.SANDMLE_REVIEW_MIN_APPROVALS} approvals: it waits for another "
                 f"reviewer)")
    following = review_selectors.review_next_task(user=request.user, after=task)
    if following is None:
        messages.success(request, f"{said}. Your review queue is empty.")
        return redirect("review-queue")
    messages.success(request, f"{said}. Next in your queue: {following.task_id}.")
    return redirect("task-detail", task_id=following.task_id)


def _back(task: SynthesizedTask, anchor: str = "review"):
    return redirect(f"{reverse('task-detail', args=[task.task_id])}#{anchor}")


def _refused(request, task, error_text: str):
    return render(request, "400.html", {"reason": error_text,
                                        "back": reverse("task-detail", args=[task.task_id])}, status=400)


@role_required(Role.REVIEWER)
@require_POST
def task_review_action(request, task_id, action):
    """decide / reopen / retire / assign / comment on the task; each validated by its form, carried out by a service."""
    task = get_object_or_404(SynthesizedTask.objects.select_related("assigned_to"), task_id=task_id)
    form = {"decide": DecisionForm, "reopen": ReasonForm, "comment": ThreadCommentForm}.get(action, ReasonForm)(
        request.POST)
    if action not in ("decide", "reopen", "retire", "assign", "comment"):
        raise PermissionDenied("unknown review action")
    if action != "assign" and not form.is_valid():
        return _refused(request, task, "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
    try:
        if action == "decide":
            task = review_services.review_decide(task=task, user=request.user, **form.cleaned_data)
            return after_decision(request, task=task, verdict=form.cleaned_data["verdict"])
        elif action == "reopen":
            review_services.review_reopen(task=task, user=request.user, reason=form.cleaned_data["reason"])
        elif action == "retire":
            review_services.review_retire(task=task, user=request.user, reason=form.cleaned_data["reason"])
        elif action == "assign":
            username = request.POST.get("assignee", "").strip()
            assignee = review_services.reviewer_by_username(username) if username else None
            review_services.review_assign(task=task, user=request.user, assignee=assignee,
                                          reason=request.POST.get("reason", ""))
        else:
            parent = None
            if form.cleaned_data["parent"]:
                parent = get_object_or_404(ReviewComment, id=form.cleaned_data["parent"], task=task)
            review_services.comment_add(task=task, user=request.user, body=form.cleaned_data["body"],
                                        visibility=form.cleaned_data["visibility"], parent=parent)
    except ServiceError as error:
        return _refused(request, task, f"{error.field}: {error}")
    return _back(task)


@role_required(Role.REVIEWER)
@require_POST
def comment_resolve(request, comment_id):
    comment = get_object_or_404(ReviewComment.objects.select_related("task", "trajectory"), id=comment_id)
    review_services.comment_resolve(comment=comment, user=request.user, resolved=request.POST.get("resolved") != "0")
    if comment.trajectory_id:
        return redirect(f"{reverse('trajectory-detail', args=[comment.trajectory_id])}#turn-comments")
    return _back(comment.task)


@role_required(Role.REVIEWER)
@require_POST
def trajectory_turn_comment(request, trajectory_id, turn):
    trajectory = get_object_or_404(training_hooks.trajectories().select_related("task").defer("record"), id=trajectory_id)
    form = ThreadCommentForm(request.POST)
    back = reverse("trajectory-detail", args=[trajectory.id])
    if not form.is_valid():
        return render(request, "400.html", {"reason": "; ".join(f"{f}: {' '.join(e)}" for f, e in form.errors.items()),
                                            "back": back}, status=400)
    parent = None
    if form.cleaned_data["parent"]:
        parent = get_object_or_404(ReviewComment, id=form.cleaned_data["parent"], trajectory=trajectory)
    try:
        review_services.comment_add(task=trajectory.task, user=request.user, body=form.cleaned_data["body"],
                                    visibility=form.cleaned_data["visibility"], parent=parent, trajectory=trajectory,
                                    turn=turn)
    except ServiceError as error:
        return render(request, "400.html", {"reason": f"{error.field}: {error}", "back": back}, status=400)
    return redirect(f"{back}#turn-{turn}")
