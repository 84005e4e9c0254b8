"""Pages of the training side: launch and watch rollout batches, trajectories turn by turn, side-by-side groups."""

from __future__ import annotations

import json

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role
from sandmle.evaluation.uninformative import spread_warning
from sandmle.tasks.grade_report import stored_grade
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.review.selectors import turn_comment_context
from training_app.models import RolloutBatch, Trajectory
from training_app.rollouts import selectors, services
from training_app.rollouts.forms import RolloutBatchForm
from training_app.shared import presentation
from training_app.shared.job_list import JobListPage, task_set_of
from training_app.shared.reward_schemes import reward_scheme_view
from training_app.shared.trajectory_diff import mark_first_difference


class RolloutBatchList(JobListPage):
    form_class = RolloutBatchForm
    template = "training/rollouts/rollout_batch_list.html"
    jobs_name, launching = "batches", "rollouts"
    detail_url, detail_id = "rollout-batch-detail", "batch_id"

    def create(self, form):
        fields = dict(form.cleaned_data)
        return services.rollout_batch_create(task_set=task_set_of(fields), user=self.request.user, **fields)

    def jobs(self):
        return selectors.rollout_batch_list()


rollout_batch_list = RolloutBatchList.as_view()


def _batch_or_404(batch_id: int) -> RolloutBatch:
    try:
        return selectors.rollout_batch_get(batch_id=batch_id)
    except RolloutBatch.DoesNotExist:
        raise Http404(f"no rollout batch {batch_id}")


@role_required(Role.VIEWER)
@bad_page_is_400
def rollout_batch_detail(request, batch_id):
    batch = _batch_or_404(batch_id)
    if request.method == "POST":  # cancel: a viewer's POST is refused like every other job page's
        if not batch.may_be_cancelled_by(request.user):
            return render(request, "403.html",
                          {"reason": "Only the batch's creator, reviewers and admins may cancel it."}, status=403)
        RolloutBatch.request_cancel(batch.id, actor=request.user)
        return redirect("rollout-batch-detail", batch_id=batch.id)
    # Paged by task, not by trajectory, so a task's G samples are never split across two pages.
    page = paginate(request, selectors.batch_task_ids(batch=batch), per_page=25)
    groups = selectors.trajectory_groups(batch=batch, task_pks=page.object_list)
    return render(request, "training/rollouts/rollout_batch_detail.html",
                  {"batch": batch, "groups": groups, "page": page,
                   "schemes": reward_scheme_view(batch.summary.get("reward_schemes")),
                   "spread_warning": spread_warning(batch.summary.get("reward_schemes"), policies=[batch.policy])
                   if batch.samples > 1 else None})


@role_required(Role.VIEWER)
def rollout_batch_export(request, batch_id):
    """All trajectories of a batch as JSONL, streamed."""
    batch = _batch_or_404(batch_id)
    rows = Trajectory.objects.filter(batch=batch).order_by("task__task_id", "sample_index").values_list("record", flat=True)
    response = StreamingHttpResponse((json.dumps(record, sort_keys=True) + "\n" for record in rows.iterator()),
                                     content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="rollout-batch-{batch.id}.jsonl"'
    return response


def _trajectory_view(trajectory: Trajectory) -> dict:
    record = trajectory.record
    grade = stored_grade(record.get("grade"))
    return {"trajectory": trajectory, "turns": presentation.turn_views(record), "grade": grade,
            "turn_count": presentation.turn_count(record, trajectory.batch.max_turns),
            "ladder": presentation.ladder_view(grade), "rewards": record.get("rewards") or {}, "record": record}


@role_required(Role.VIEWER)
def trajectory_detail(request, trajectory_id):
    try:
        trajectory = selectors.trajectory_get(trajectory_id=trajectory_id)
    except Trajectory.DoesNotExist:
        raise Http404(f"no trajectory {trajectory_id}")
    context = _trajectory_view(trajectory) | {"pygments_css": presentation.pygments_css()}
    context |= turn_comment_context(trajectory=trajectory, user=request.user)
    # Each turn carries its own threads (shown under it); a thread on a turn the record does not hold is listed apart.
    threads = dict(context["turn_rows"])
    for turn in context["turns"]:
        turn["comment_turn"] = turn["index"] - 1
        turn["threads"] = threads.pop(turn["index"] - 1, [])
    context["turn_rows"] = [(turn, rows) for turn, rows in threads.items() if rows]
    return render(request, "training/rollouts/trajectory_detail.html", context | {"turn_comments": True})


@role_required(Role.VIEWER)
def trajectory_compare(request, batch_id, task_id):
    """The G trajectories of one task side by side."""
    batch = _batch_or_404(batch_id)
    trajectories = list(Trajectory.objects.filter(batch=batch, task__task_id=task_id).select_related("task"))
    if not trajectories:
        raise Http404("no trajectories of that task in this batch")
    columns = [_trajectory_view(t) for t in trajectories]
    differ_at = mark_first_difference([column["turns"] for column in columns])
    return render(request, "training/rollouts/trajectory_compare.html", {
        "batch": batch, "task_id": task_id, "columns": columns,
        "first_difference_turn": None if differ_at is None else differ_at + 1,
        "pygments_css": presentation.pygments_css(),
    })
