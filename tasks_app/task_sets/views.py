"""Pages of task sets: the list with the picker of approved tasks; one set's page with its tasks and their stats, its
history, edit, clone, retire and restore (edit, retire and restore for its owner, reviewers and admins), and links that
launch work on it."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError, form_errors_from
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.frontier import selectors as frontier_selectors
from tasks_app.frontier.forms import FrontierRunForm
from tasks_app.models import TaskSet
from tasks_app.shared import training_hooks
from tasks_app.task_sets import picker as task_set_picker
from tasks_app.task_sets import selectors, services
from tasks_app.task_sets.forms import TaskSetCloneForm, TaskSetEditForm, TaskSetForm, TaskSetRetireForm


def _last_audit(task_set: TaskSet):
    """The set's newest finished audit with its first failing cases, for the set page's audit panel."""
    audit = training_hooks.last_audit(task_set=task_set)
    if audit is not None:
        audit.failing_cases = training_hooks.failing_verdicts(audit=audit, limit=5)
        audit.stale = training_hooks.stale_lines(audit=audit, task_set=task_set)
    return audit


def _attach_last_audits(task_sets) -> None:
    """Each set's newest finished audit, with its first failing cases, for the set list's audit column."""
    found = training_hooks.last_audits(task_sets)
    for task_set in task_sets:
        task_set.last_audit = found.get(task_set.id)
        if task_set.last_audit is not None:
            task_set.last_audit.failing_cases = training_hooks.failing_verdicts(audit=task_set.last_audit, limit=5)


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
                return redirect("task-set-detail", task_set.name)
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    page = paginate(request, selectors.task_set_list())
    _attach_last_audits(page.object_list)
    context = {"task_sets": page, "page": page, "form": form, "is_reviewer": has_role(request.user, Role.REVIEWER)}
    if is_curator:
        checked = set(request.POST.getlist("task_ids")) if request.method == "POST" else set()
        context.update(picker_page=paginate(request, picker.qs, page_param="tasks_page"), checked=checked,
                       picker=picker, picker_filters=task_set_picker.applied_filters(picker, request=request))
    return render(request, "tasks/task_sets/task_set_list.html", context, status=status)


def _page(request, task_set: TaskSet, *, clone_form=None, status: int = 200):
    tasks = selectors.task_set_task_rows(task_set=task_set)
    context = {"task_set": task_set, "tasks": tasks, "summary": selectors.task_set_summary(tasks=tasks),
               "is_curator": has_role(request.user, Role.CURATOR), "clone_form": clone_form or TaskSetCloneForm(),
               "is_reviewer": has_role(request.user, Role.REVIEWER), "last_audit": _last_audit(task_set),
               "frontier_form": FrontierRunForm(), "may_change": task_set.may_be_changed_by(request.user),
               "history": selectors.task_set_history(task_set=task_set, user=request.user),
               "frontier_runs": frontier_selectors.frontier_run_list(task_set=task_set)[:5]}
    return render(request, "tasks/task_sets/task_set_detail.html", context, status=status)


def _refused(request, task_set: TaskSet):
    return render(request, "403.html", {"reason": task_set.change_refusal()}, status=403)


@role_required(Role.VIEWER)
def task_set_detail(request, name):
    return _page(request, get_object_or_404(TaskSet, name=name))


@role_required(Role.CURATOR)
def task_set_edit(request, name):
    task_set = get_object_or_404(TaskSet.objects.select_related("created_by"), name=name)
    if not task_set.may_be_changed_by(request.user):
        return _refused(request, task_set)
    task_ids = list(task_set.tasks.order_by("task_id").values_list("task_id", flat=True))
    if task_set.retired_at is not None:
        return render(request, "400.html", {"reason": f"task set {name} is retired; restore or clone it to change it"},
                      status=400)
    form = TaskSetEditForm(initial={"name": task_set.name, "description": task_set.description}, task_ids=task_ids)
    status = 200
    if request.method == "POST":
        form = TaskSetEditForm(request.POST, task_ids=task_ids)
        if form.is_valid():
            try:
                services.task_set_update(task_set=task_set, user=request.user, **form.cleaned_data)
                messages.success(request, f"Task set {task_set.name} saved.")
                return redirect("task-set-detail", task_set.name)
            except ServiceError as error:
                task_set.refresh_from_db()  # the transaction rolled back; the name on screen is the stored one
                form_errors_from(form, error)
        status = 400
    return render(request, "tasks/task_sets/task_set_edit.html", {"task_set": task_set, "form": form}, status=status)


@role_required(Role.CURATOR)
@require_POST
def task_set_clone(request, name):
    task_set = get_object_or_404(TaskSet, name=name)
    form = TaskSetCloneForm(request.POST)
    if form.is_valid():
        try:
            clone = services.task_set_clone(task_set=task_set, name=form.cleaned_data["name"], user=request.user)
            messages.success(request, f"Task set {clone.name} cloned from {task_set.name}.")
            return redirect("task-set-detail", clone.name)
        except ServiceError as error:
            form_errors_from(form, error)
    return _page(request, task_set, clone_form=form, status=400)


@role_required(Role.CURATOR)
@require_POST
def task_set_retire(request, name):
    task_set = get_object_or_404(TaskSet.objects.select_related("created_by"), name=name)
    if not task_set.may_be_changed_by(request.user):
        return _refused(request, task_set)
    form = TaskSetRetireForm(request.POST)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        return render(request, "400.html", {"reason": f"{field}: {' '.join(errors)}", "field": field}, status=400)
    try:
        services.task_set_retire(task_set=task_set, user=request.user, reason=form.cleaned_data["reason"])
        messages.success(request, f"Task set {task_set.name} retired: launch forms no longer offer it.")
    except ServiceError as error:
        messages.error(request, str(error))
    return redirect("task-set-detail", task_set.name)


@role_required(Role.CURATOR)
@require_POST
def task_set_restore(request, name):
    task_set = get_object_or_404(TaskSet.objects.select_related("created_by"), name=name)
    if not task_set.may_be_changed_by(request.user):
        return _refused(request, task_set)
    try:
        services.task_set_restore(task_set=task_set, user=request.user)
        messages.success(request, f"Task set {task_set.name} restored: launch forms offer it again.")
    except ServiceError as error:
        messages.error(request, str(error))
    return redirect("task-set-detail", task_set.name)
