"""Pages of the task side: seeds and their DNA, synthesis runs, tasks, the review queue and task sets."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.markdown import render_markdown
from studio.paging import bad_page_is_400, paginate
from tasks_app import bundle_files, regenerate, review_services, selectors, services, task_page, task_set_picker
from tasks_app.forms import ReviewForm, SeedUploadForm, SynthesisRunForm, TaskSetForm
from tasks_app.models import SynthesisRun, SynthesizedTask
from tasks_app.rollout_stats import attach_rollout_stats
from tasks_app.views_review import review_panel_context


def _form_errors_from(form, error: services.ServiceError) -> None:
    form.add_error(error.field if error.field in form.fields else None, str(error))


@role_required(Role.VIEWER)
@bad_page_is_400
def seed_list(request):
    form = SeedUploadForm()
    if request.method == "POST":
        if not has_role(request.user, Role.CURATOR):
            return render(request, "403.html", {"reason": "Uploading seeds needs the curator role."}, status=403)
        form = SeedUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                seed = services.seed_create_from_upload(
                    name=form.cleaned_data["name"], content=form.cleaned_data["file"].read(),
                    target=form.cleaned_data["target"], task_type=form.cleaned_data["task_type"],
                    metric=form.cleaned_data["metric"], user=request.user,
                )
                messages.success(request, f"Seed {seed.name} added.")
                return redirect("seed-detail", name=seed.name)
            except services.ServiceError as error:
                _form_errors_from(form, error)
        status = 400
    else:
        status = 200
    page = paginate(request, selectors.seed_list_rows())
    return render(request, "tasks/seed_list.html", {"seeds": page, "page": page, "form": form}, status=status)


@role_required(Role.VIEWER)
def seed_detail(request, name):
    try:
        seed = selectors.seed_get(name=name)
    except Exception:
        raise Http404(f"no seed named {name}")
    form = SynthesisRunForm()
    status = 200
    if request.method == "POST":
        if not has_role(request.user, Role.CURATOR):
            return render(request, "403.html", {"reason": "Synthesis needs the curator role."}, status=403)
        form = SynthesisRunForm(request.POST)
        if form.is_valid():
            try:
                run = services.synthesis_run_create(seed=seed, user=request.user, **form.cleaned_data)
                return redirect("synthesis-run-detail", run_id=run.id)
            except services.ServiceError as error:
                _form_errors_from(form, error)
        status = 400
    dna = seed.dna.data if hasattr(seed, "dna") else {}
    context = {"seed": seed, "dna": dna, "dna_json": json.dumps(dna, indent=2), "form": form,
               "runs": selectors.synthesis_run_list_rows(seed=seed)[:20]}
    return render(request, "tasks/seed_detail.html", context, status=status)


@role_required(Role.VIEWER)
@bad_page_is_400
def synthesis_run_list(request):
    page = paginate(request, selectors.synthesis_run_list_rows())
    return render(request, "tasks/synthesis_run_list.html", {"runs": page, "page": page})


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
    page = paginate(request, selectors.task_list_rows(run_id=run.id))
    return render(request, "tasks/synthesis_run_detail.html",
                  {"run": run, "tasks": attach_rollout_stats(page), "page": page})


@role_required(Role.VIEWER)
@bad_page_is_400
def task_list(request):
    # The rule family is hidden from viewers: filtering by it would let them ask for each family by name.
    keys = ("status", "seed", "modality", "rule_family") if has_role(request.user, Role.REVIEWER) else (
        "status", "seed", "modality")
    filters = {key: request.GET.get(key, "") for key in keys}
    page = paginate(request, selectors.task_list_rows(**filters))
    return render(request, "tasks/task_list.html", {"tasks": attach_rollout_stats(page), "page": page,
                                                    "filters": filters, "statuses": SynthesizedTask.Status.values})


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
                services.task_assign(task=task, user=request.user)
                return redirect("task-detail", task_id=task.task_id)
            except services.ServiceError as error:
                messages.error(request, str(error))
                return redirect("task-detail", task_id=task.task_id)
        form = ReviewForm(request.POST)
        if form.is_valid():
            verdict, body = form.cleaned_data["verdict"], form.cleaned_data["body"]
            try:
                if verdict in ("approve", "reject", "request_changes"):
                    review_services.review_decide(task=task, user=request.user, verdict=verdict, reason=body)
                else:
                    services.task_comment_add(task=task, user=request.user, body=body,
                                              visibility=form.cleaned_data["visibility"] or "reviewers")
                return redirect("task-detail", task_id=task.task_id)
            except services.ServiceError as error:
                _form_errors_from(form, error)
        status = 400
    context = {
        "task": task, "form": form, "is_reviewer": is_reviewer,
        "description_html": render_markdown(bundle_files.read_text(task.bundle_dir, "public/description.md")),
        "previews": bundle_files.public_previews(task.bundle_dir),
        "images": bundle_files.image_names(task.bundle_dir),
        "comments": selectors.task_comments_for(task=task, user=request.user),
        "milestone_rows": [(name, task.milestones.get(name)) for name in ("median", "bronze", "silver", "gold")],
        "ladder_rows": sorted(task.ladder.items(), key=lambda item: item[0]),
    } | task_page.task_presentation(task=task, include_private=is_reviewer) | review_panel_context(
        task=task, user=request.user)
    if is_reviewer:
        rule = bundle_files.read_json(task.bundle_dir, "private/rule.json")
        context.update(rule=rule, rule_json=json.dumps(rule, indent=2),
                       grading_json=bundle_files.read_text(task.bundle_dir, "private/grading.json"),
                       answers_preview=bundle_files.read_text(task.bundle_dir, "private/answers.csv", limit=2000))
    return render(request, "tasks/task_detail.html", context, status=status)


@role_required(Role.VIEWER)
def task_image(request, task_id, name):
    """A public image of an image task (names only from the bundle's own listing: no path tricks)."""
    task = get_object_or_404(SynthesizedTask, task_id=task_id)
    if name not in bundle_files.image_names(task.bundle_dir, limit=10**6):
        raise Http404("no such image")
    from pathlib import Path

    return FileResponse(open(Path(task.bundle_dir) / "public" / "images" / name, "rb"), content_type="image/png")


def _attach_last_audits(task_sets) -> None:
    """Each set's newest finished audit, with its first failing cases, for the set list's audit column."""
    from training_app.audits import selectors as audit_selectors

    found = audit_selectors.last_audits(task_sets)
    for task_set in task_sets:
        task_set.last_audit = found.get(task_set.id)
        if task_set.last_audit is not None:
            task_set.last_audit.failing_cases = audit_selectors.failing_verdicts(audit=task_set.last_audit, limit=5)


@role_required(Role.VIEWER)
@bad_page_is_400
def task_set_list(request):
    """Task sets, and for curators a picker: filter the approved tasks, page them, make a set from some or all."""
    is_curator = has_role(request.user, Role.CURATOR)
    if request.method == "POST" and not is_curator:
        return render(request, "403.html", {"reason": "Task sets need the curator role."}, status=403)
    # The form posts to its own URL, query string and all, so "every matching task" is the filter on screen.
    picker = task_set_picker.picker_filter(data=request.GET, request=request)
    if not picker.is_valid():
        field, errors = next(iter(picker.errors.items()))
        return render(request, "400.html", {"reason": f"{field}: {' '.join(errors)}", "field": field}, status=400)
    form = TaskSetForm()
    status = 200
    if request.method == "POST":
        form = TaskSetForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            fields = {"name": data["name"], "description": data["description"], "user": request.user}
            try:
                if data["selection"] == "matching":
                    task_set = services.task_set_create_matching(tasks=picker.qs, field="selection", **fields)
                else:
                    task_set = services.task_set_create(task_ids=data["task_ids"], **fields)
                messages.success(request, f"Task set {task_set.name} created with {task_set.tasks.count()} tasks.")
                return redirect("task-set-list")
            except services.ServiceError as error:
                _form_errors_from(form, error)
        status = 400
    page = paginate(request, selectors.task_set_list())
    _attach_last_audits(page.object_list)
    context = {"task_sets": page, "page": page, "form": form}
    if is_curator:
        checked = set(request.POST.getlist("task_ids")) if request.method == "POST" else set()
        context.update(picker_page=paginate(request, picker.qs, page_param="tasks_page"), checked=checked,
                       picker_filters=task_set_picker.applied_filters(picker, request=request),
                       difficulties=SynthesizedTask.Difficulty.choices)
    return render(request, "tasks/task_set_list.html", context, status=status)


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
    except services.ServiceError as error:
        messages.error(request, f"{error.field}: {error}")
        return redirect("task-detail", task_id=task.task_id)
    return redirect("synthesis-run-detail", run_id=run.id)
