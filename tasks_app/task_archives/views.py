"""Pages of task-set archives (reviewers and above: the answers travel with every archive)."""

from __future__ import annotations

from pathlib import Path

from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import role_required
from accounts.roles import Role
from sandmle_web.errors import ServiceError, form_errors_from
from tasks_app.models import TaskSet
from tasks_app.task_archives import services
from tasks_app.task_archives.forms import ExportForm, ImportForm
from tasks_app.task_archives.models import TaskArchiveImport, TaskSetExport


@role_required(Role.REVIEWER)
def task_set_export(request, name):
    """Choose a layout and queue the archive's build; the set's earlier archives are listed."""
    task_set = get_object_or_404(TaskSet, name=name)
    form = ExportForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                export = services.task_set_export_create(task_set=task_set, fmt=form.cleaned_data["format"],
                                                         user=request.user)
                return redirect("task-set-export-detail", export_id=export.id)
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    exports = task_set.exports.select_related("created_by").order_by("-created_at")[:20]
    return render(request, "tasks/task_archives/export.html",
                  {"task_set": task_set, "form": form, "exports": exports}, status=status)


@role_required(Role.REVIEWER)
def task_set_export_detail(request, export_id):
    export = get_object_or_404(TaskSetExport.objects.select_related("task_set"), id=export_id)
    return render(request, "tasks/task_archives/export_detail.html", {"export": export})


def export_file_response(export: TaskSetExport) -> FileResponse:
    """The finished archive as a download; a row whose file is gone (data dir cleaned) is a 404."""
    path = Path(export.archive_path)
    if not export.archive_path or not path.is_file() or path.is_symlink():
        raise Http404("this export has no archive (not built yet, or failed)")
    return FileResponse(path.open("rb"), content_type="application/gzip", as_attachment=True,
                        filename=f"{export.task_set.name}-{export.format}.tar.gz")


@role_required(Role.REVIEWER)
def task_set_export_download(request, export_id):
    return export_file_response(get_object_or_404(TaskSetExport.objects.select_related("task_set"), id=export_id))


@role_required(Role.REVIEWER)
def task_archive_import_list(request):
    """Upload an archive to import its tasks (they wait for review); recent imports are listed."""
    form = ImportForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                job = services.task_archive_import_create(upload=data["file"], fmt=data["format"],
                                                          metric=data["metric"], user=request.user)
                return redirect("task-archive-import-detail", import_id=job.id)
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    imports = TaskArchiveImport.objects.select_related("created_by").order_by("-created_at")[:20]
    return render(request, "tasks/task_archives/import.html", {"form": form, "imports": imports}, status=status)


@role_required(Role.REVIEWER)
def task_archive_import_detail(request, import_id):
    job = get_object_or_404(TaskArchiveImport, id=import_id)
    return render(request, "tasks/task_archives/import_detail.html", {"job": job})
