"""Pages of frontier runs: the launch form beside a set's earlier runs, and a run's live progress with its
before/after table and the new set."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError, form_errors_from
from tasks_app.frontier import selectors, services
from tasks_app.frontier.forms import FrontierRunForm
from tasks_app.frontier.models import FrontierRun
from tasks_app.models import TaskSet


@role_required(Role.VIEWER)
def frontier_launch(request, name):
    """GET: the form and the set's runs; POST (curators): queue a run on the set."""
    task_set = get_object_or_404(TaskSet, name=name)
    form = FrontierRunForm()
    status = 200
    if request.method == "POST":
        if not has_role(request.user, Role.CURATOR):
            return render(request, "403.html", {"reason": "Re-levelling a task set needs the curator role."},
                          status=403)
        form = FrontierRunForm(request.POST)
        if form.is_valid():
            try:
                run = services.frontier_run_create(task_set=task_set, user=request.user, **form.cleaned_data)
                return redirect("frontier-run-detail", run_id=run.id)
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    runs = selectors.frontier_run_list(task_set=task_set)[:20]
    return render(request, "tasks/frontier/frontier_launch.html",
                  {"task_set": task_set, "form": form, "runs": runs}, status=status)


@role_required(Role.VIEWER)
def frontier_run_detail(request, run_id):
    try:
        run = selectors.frontier_run_get(run_id=run_id)
    except FrontierRun.DoesNotExist:
        raise Http404(f"no frontier run {run_id}")
    return render(request, "tasks/frontier/frontier_run_detail.html", {
        "run": run, "rows": selectors.frontier_table(run=run), "summary": selectors.frontier_summary(run=run)})
