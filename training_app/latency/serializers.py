"""Input and output serializers of the latency-study API."""

from __future__ import annotations

from rest_framework import serializers

from training_app.latency import services
from training_app.models import LatencyStudy


class LatencyStudyInput(serializers.Serializer):
    task = serializers.CharField(max_length=100, required=False, allow_blank=True, default="",
                                 help_text="a synthesized task's id; or send `table` (multipart) and `target`")
    seed = serializers.CharField(max_length=80, required=False, allow_blank=True, default="",
                                 help_text="or a seed dataset's name: a task spec is drawn from its DNA")
    table = serializers.FileField(required=False, allow_null=True, default=None)
    target = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    full_rows = serializers.IntegerField(min_value=1, max_value=services.MAX_FULL_ROWS, required=False,
                                         allow_null=True, default=None)
    seeds = serializers.IntegerField(min_value=1, max_value=services.MAX_SEEDS, default=3)
    pipelines = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list)
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class LatencyStudyOutput(serializers.ModelSerializer):
    task = serializers.CharField(source="task.task_id", default=None)
    seed = serializers.CharField(source="seed.name", default=None)

    class Meta:
        model = LatencyStudy
        fields = ["id", "name", "task", "seed", "table_name", "target", "full_rows", "seeds", "pipelines", "queue", "state",
                  "progress", "progress_message", "error", "result", "created_at", "started_at", "finished_at"]
