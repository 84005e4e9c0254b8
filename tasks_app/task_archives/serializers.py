"""Input and output serializers of the task-archive API: exports of a task set and archive imports."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from tasks_app.task_archives.models import FORMAT_CHOICES, TaskArchiveImport, TaskSetExport

JOB_FIELDS = ["id", "state", "progress", "progress_message", "error", "created_at", "started_at", "finished_at"]


class ExportInput(serializers.Serializer):
    format = serializers.ChoiceField(choices=FORMAT_CHOICES)


class ExportOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    download_url = serializers.SerializerMethodField(help_text="the archive, once the export succeeded")

    class Meta:
        model = TaskSetExport
        fields = [*JOB_FIELDS, "task_set", "format", "size_bytes", "task_ids", "download_url"]

    def get_download_url(self, export) -> str | None:
        return reverse("api-task-set-export-archive", kwargs={"export_id": export.id}) if export.archive_path else None


class ImportInput(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=FORMAT_CHOICES)
    metric = serializers.CharField(max_length=32, required=False, default="", allow_blank=True)


class ImportOutput(serializers.ModelSerializer):
    class Meta:
        model = TaskArchiveImport
        fields = [*JOB_FIELDS, "format", "filename", "metric", "summary"]
