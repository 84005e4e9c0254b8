"""The REST API of training runs: launch, list, watch, cancel, read the metric lines; routes in `urlpatterns`."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.job_api import JobCancelApi, job_launch
from training_app import training_services as services
from training_app.models import TrainingRun


class TrainingRunInput(serializers.Serializer):
    """Types only; ranges and choices are the engine's (load_train_config names the key it refuses)."""

    task_set = serializers.SlugField()
    kind = serializers.ChoiceField(choices=TrainingRun.Kind.values, default="grpo")
    model = serializers.CharField(max_length=500)
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    lora_r = serializers.IntegerField(min_value=1, max_value=1024, required=False, allow_null=True, default=None)
    steps = serializers.IntegerField(required=False)
    group_size = serializers.IntegerField(required=False)
    tasks_per_step = serializers.IntegerField(required=False)
    learning_rate = serializers.FloatField(required=False)
    reward = serializers.CharField(required=False)
    max_turns = serializers.IntegerField(required=False)
    max_response_tokens = serializers.IntegerField(required=False)
    save_every = serializers.IntegerField(required=False)

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise ValidationError({unknown[0]: ["unknown setting"]})
        return attrs


class TrainingRunOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    checkpoints = serializers.SerializerMethodField()

    class Meta:
        model = TrainingRun
        fields = ["id", "name", "kind", "task_set", "config", "queue", "state", "progress", "progress_message",
                  "error", "smoke_model", "checkpoints", "created_at", "started_at", "finished_at"]

    def get_checkpoints(self, run) -> list[dict]:
        return [{"step": c.step, "path": c.path, "policy": f"hf:{c.path}"} for c in run.checkpoints.all()]


class TrainingRunListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TrainingRunOutput

    def get_queryset(self):
        return TrainingRun.objects.select_related("task_set").prefetch_related("checkpoints").order_by("-created_at")

    def post(self, request):
        return job_launch(request, self, input_serializer=TrainingRunInput, create=services.training_run_create,
                          output_serializer=TrainingRunOutput)


class TrainingRunDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, run_id):
        return Response(TrainingRunOutput(get_object_or_404(TrainingRun, id=run_id)).data)


class TrainingRunCancelApi(JobCancelApi):
    model = TrainingRun
    output_serializer = TrainingRunOutput
    noun = "run"


class TrainingRunMetricsApi(APIView):
    """The run's metrics.jsonl lines as stored, one per step."""

    permission_classes = [IsViewer]

    def get(self, request, run_id):
        run = get_object_or_404(TrainingRun, id=run_id)
        return Response([row.metrics for row in run.metrics.all()])


urlpatterns = [
    path("training-runs/", TrainingRunListApi.as_view(), name="api-training-run-list"),
    path("training-runs/<int:run_id>/", TrainingRunDetailApi.as_view(), name="api-training-run-detail"),
    path("training-runs/<int:run_id>/cancel/", TrainingRunCancelApi.as_view(), name="api-training-run-cancel"),
    path("training-runs/<int:run_id>/metrics/", TrainingRunMetricsApi.as_view(), name="api-training-run-metrics"),
]
