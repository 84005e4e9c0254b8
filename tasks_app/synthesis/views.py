"""Pages of synthesis runs: the list and a run's progress."""

from __future__ import annotations

from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import role_required
from accounts.roles import Role
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.models import SynthesisRun
from tasks_app.synthesis import selectors
from tasks_app.tasks import selectors as task_selectors
from tasks_app.tasks.rollout_stats import attach_rollout_stats


@role_required(Role.VIEWER)
@bad_page_is_400
def synthesis_run_list(request):
    page = paginate(request, selectors.synthesis_run_list_rows())
    return render(request, "tasks/synthesis/synthesis_run_list.html", {"runs": page, "page": page})


@role_required(Role.VIEWER)
@bad_page_is_400
def synthesis_run_detail(request, run_id):
    run = get_object_or_404(SynthesisRun.objects.select_related("seed"), id=run_id)
    if request.method == "POST":
        if not run.may_be_cancelled_by(request.user):
            return render(request, "403.html", {"reason": "Only the run's creator, reviewers and admins may cancel it."},
                          status=403)
        SynthesisRun.request_cancel(run.id, actor=request.user)
        return redirect("synthesis-run-detail", run_id=run.id)
    page = paginate(request, task_selectors.task_list_rows(run_id=run.id))
    return render(request, "tasks/synthesis/synthesis_run_detail.html",
                  {"run": run, "tasks": attach_rollout_stats(page), "page": page})
