"""Rows of task-set archives: an export job builds one file for download, an import job reads an uploaded one."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.task_sets.models import TaskSet

FORMAT_CHOICES = [("mlebench", "MLE-bench"), ("sandmle", "SandMLE"), ("bundle", "SandMLE Studio bundles")]


class TaskSetExport(Job):
    """One archive of a task set in one layout; the file lives under the data dir until the row is deleted."""

    task_set = models.ForeignKey(TaskSet, on_delete=models.CASCADE, related_name="exports")
    format = models.CharField(max_length=16, choices=FORMAT_CHOICES)
    archive_path = models.CharField(max_length=500, blank=True, default="")
    size_bytes = models.BigIntegerField(default=0)
    task_ids = models.JSONField(default=list, blank=True)
    queue = models.CharField(max_length=16, default="default")

    task_names = ("workers.task_archives.build_task_set_archive",)

    class Meta(Job.Meta):
        app_label = "tasks_app"

    def __str__(self) -> str:
        return f"export #{self.id} of {self.task_set_id} ({self.format})"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("task-set-export-detail", kwargs={"export_id": self.id})


class TaskArchiveImport(Job):
    """An uploaded archive read task by task; imported tasks wait for review like synthesized ones."""

    format = models.CharField(max_length=16, choices=FORMAT_CHOICES)
    filename = models.CharField(max_length=200, blank=True, default="")
    upload_path = models.CharField(max_length=500, blank=True, default="")
    metric = models.CharField(max_length=32, blank=True, default="")
    summary = models.JSONField(default=dict, blank=True)  # {"imported": [task ids], "refused": [{task, reason}]}
    stored_bytes = models.BigIntegerField(default=0)  # the imported bundles' files: counted in the user's quota
    queue = models.CharField(max_length=16, default="sandbox")  # a SandMLE evaluator runs in the sandbox

    task_names = ("workers.task_archives.import_task_archive",)

    class Meta(Job.Meta):
        app_label = "tasks_app"

    def __str__(self) -> str:
        return f"archive import #{self.id} ({self.format})"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("task-archive-import-detail", kwargs={"import_id": self.id})
