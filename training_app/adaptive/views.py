"""Actions of the run page on adaptive runs: a reviewer approves or rejects a waiting successor (review hold), a
curator saves the run's current frontier as a task set. The page itself is the run page (training_app.runs.views)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from accounts.permissions import role_required
from accounts.roles import Role
from sandmle_web.errors import ServiceError
from training_app.adaptive import services
from training_app.runs.views import _run_or_404


@require_POST
@role_required(Role.REVIEWER)
def successor_decide(request, run_id, task_id):
    run = _run_or_404(run_id)
    verdict = request.POST.get("verdict")
    if verdict not in ("approve", "reject"):
        messages.error(request, "Choose approve or reject.")
        return redirect("training-run-detail", run_id=run.id)
    try:
        task = services.adaptive_successor_decide(run=run, task_id=task_id, user=request.user,
                                                  approve=verdict == "approve", reason=request.POST.get("reason", ""))
        messages.success(request, f"{task.task_id}: {task.get_status_display()}.")
    except ServiceError as error:
        messages.error(request, f"{task_id}: {error}")
    return redirect(f"/training/{run.id}/#environments")


@require_POST
@role_required(Role.CURATOR)
def frontier_save(request, run_id):
    run = _run_or_404(run_id)
    try:
        task_set = services.adaptive_frontier_save(run=run, name=request.POST.get("name", "").strip(),
                                                   user=request.user)
    except ServiceError as error:
        messages.error(request, f"Not saved: {error}")
        return redirect(f"/training/{run.id}/#environments")
    return redirect("task-set-detail", task_set.name)
