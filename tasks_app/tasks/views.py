"""Pages of tasks: the filtered list, a task's page, its images, regeneration."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError, form_errors_from
from sandmle_web.markdown import render_markdown
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.models import SynthesizedTask
from tasks_app.review import selectors as review_selectors
from tasks_app.review import services as review_services
from tasks_app.review.forms import ReviewForm
from tasks_app.review.views import after_decision, review_panel_context
from tasks_app.tasks import bundle_files, regenerate, selectors
from tasks_app.tasks import page as task_page
from tasks_app.tasks.csv_preview import public_csv_previews
from tasks_app.tasks.filters import TaskFilter
from tasks_app.tasks.rollout_stats import attach_rollout_stats
from tasks_app.tasks.section_index import task_sections


@role_required(Role.VIEWER)
@bad_page_is_400
def task_list(request):
    # The API's filter, so the page offers the same choices; the rule family is ignored for viewers (filtering by it
    # would let them ask for each family by name) and the page shows it to reviewers only.
    filterset, status, filter_errors = TaskFilter(data=request.GET, queryset=selectors.task_list_rows(),
                                                  request=request), 200, {}
    if not filterset.is_valid():
        # The unfiltered list, the 400, and each bad filter named above it (as the review queue does).
        status, filter_errors = 400, dict(filterset.errors)
        filterset = TaskFilter(data={}, queryset=selectors.task_list_rows(), request=request)
    page = paginate(request, filterset.qs)
    return render(request, "tasks/tasks/task_list.html", {"tasks": attach_rollout_stats(page), "page": page,
                                                          "filterset": filterset, "filter_errors": filter_errors},
                  status=status)


@role_required(Role.VIEWER)
def task_detail(request, task_id):
    try:
        task = selectors.task_get(task_id=task_id)
    except SynthesizedTask.DoesNotExist:
        raise Http404(f"no task {task_id}")
    is_reviewer = has_role(request.user, Role.REVIEWER)
    form = ReviewForm()
    status = 200
    if request.method == "POST":
        if not is_reviewer:
            return render(request, "403.html", {"reason": "Reviewing needs the reviewer role."}, status=403)
        if request.POST.get("verdict") == "claim":
            try:
                review_services.task_assign(task=task, user=request.user)
                return redirect("task-detail", task_id=task.task_id)
            except ServiceError as error:
                messages.error(request, str(error))
                return redirect("task-detail", task_id=task.task_id)
        form = ReviewForm(request.POST)
        if form.is_valid():
            verdict, body = form.cleaned_data["verdict"], form.cleaned_data["body"]
            try:
                if verdict in ("approve", "reject", "request_changes"):
                    task = review_services.review_decide(task=task, user=request.user, verdict=verdict, reason=body)
                    return after_decision(request, task=task, verdict=verdict)
                else:
                    review_services.task_comment_add(task=task, user=request.user, body=body,
                                              visibility=form.cleaned_data["visibility"] or "reviewers")
                return redirect("task-detail", task_id=task.task_id)
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    context = {
        "task": task, "form": form, "is_reviewer": is_reviewer,
        "description_html": render_markdown(bundle_files.read_text(task.bundle_dir, "public/description.md")),
        "csv_previews": public_csv_previews(task.bundle_dir),
        "images": bundle_files.image_names(task.bundle_dir),
        "comments": review_selectors.task_comments_for(task=task, user=request.user),
        "milestone_rows": [(name, task.milestones.get(name)) for name in ("median", "bronze", "silver", "gold")],
        "ladder_rows": sorted(task.ladder.items(), key=lambda item: item[0]),
    } | task_page.task_presentation(task=task, include_private=is_reviewer) | review_panel_context(
        task=task, user=request.user)
    if is_reviewer:
        rule = bundle_files.read_json(task.bundle_dir, "private/rule.json")
        context.update(rule=rule, rule_json=json.dumps(rule, indent=2, ensure_ascii=False),
                       grading_json=bundle_files.read_text(task.bundle_dir, "private/grading.json"),
                       answers_preview=bundle_files.read_text(task.bundle_dir, "private/answers.csv", limit=2000))
    sections = task_sections(context, is_reviewer=is_reviewer, is_curator=has_role(request.user, Role.CURATOR))
    context.update(sections=sections, folded={section.anchor.replace("-", "_"): section  # template lookups take no "-"
                                                    for section in sections if section.empty})
    return render(request, "tasks/tasks/task_detail.html", context, status=status)


@role_required(Role.VIEWER)
def task_image(request, task_id, name):
    """A public image of an image task (names only from the bundle's own listing: no path tricks)."""
    task = get_object_or_404(SynthesizedTask, task_id=task_id)
    if name not in bundle_files.image_names(task.bundle_dir, limit=10**6):
        raise Http404("no such image")
    from pathlib import Path

    return FileResponse(open(Path(task.bundle_dir) / "public" / "images" / name, "rb"), content_type="image/png")


@role_required(Role.CURATOR)
def task_regenerate(request, task_id):
    """Start a new version of a task (same seed and rule family, a new rng); curators launch synthesis jobs."""
    task = get_object_or_404(SynthesizedTask.objects.select_related("seed"), task_id=task_id)
    if request.method != "POST":
        return redirect("task-detail", task_id=task.task_id)
    raw_rng = request.POST.get("rng", "").strip()
    if raw_rng and not (raw_rng.isascii() and raw_rng.isdigit() and len(raw_rng) <= 10):
        messages.error(request, "rng: expected a whole number, or leave it empty for a random one")
        return redirect("task-detail", task_id=task.task_id)
    try:
        run = regenerate.task_regenerate(task=task, user=request.user, rng=int(raw_rng) if raw_rng else None)
    except ServiceError as error:
        messages.error(request, f"{error.field}: {error}")
        return redirect("task-detail", task_id=task.task_id)
    return redirect("synthesis-run-detail", run_id=run.id)
