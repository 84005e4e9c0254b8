"""Pages of task sets: the list with the picker of approved tasks."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from studio.errors import ServiceError
from studio.paging import bad_page_is_400, paginate
from tasks_app.models import SynthesizedTask
from tasks_app.shared.views import form_errors_from
from tasks_app.task_sets import picker as task_set_picker
from tasks_app.task_sets import selectors, services
from tasks_app.task_sets.forms import TaskSetForm


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
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    page = paginate(request, selectors.task_set_list())
    context = {"task_sets": page, "page": page, "form": form, "is_reviewer": has_role(request.user, Role.REVIEWER)}
    if is_curator:
        checked = set(request.POST.getlist("task_ids")) if request.method == "POST" else set()
        context.update(picker_page=paginate(request, picker.qs, page_param="tasks_page"), checked=checked,
                       picker_filters=task_set_picker.applied_filters(picker, request=request),
                       difficulties=SynthesizedTask.Difficulty.choices)
    return render(request, "tasks/task_sets/task_set_list.html", context, status=status)
