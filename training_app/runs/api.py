"""The REST API of training runs: launch, list, watch, cancel, read the metric lines."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.models import TrainingRun
from training_app.runs import services
from training_app.runs.filters import TrainingRunFilter
from training_app.shared.job_api import JobCancelApi, job_launch
from training_app.runs.serializers import TrainingRunInput, TrainingRunOutput


def _runs():
    # Checkpoints in one query per page, not one per row; the trainer's result JSON is not part of a row.
    return TrainingRun.objects.select_related("task_set").prefetch_related("checkpoints", "task_set__tasks") \
        .defer("result")


class TrainingRunListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TrainingRunOutput
    filterset_class = TrainingRunFilter
    ordering_fields = ["created_at", "finished_at", "state", "kind", "name"]
    ordering = ["-created_at", "-id"]

    def get_queryset(self):
        return _runs()

    @extend_schema(operation_id="training_runs_list", summary="List training runs")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="training_runs_launch", summary="Launch GRPO or SFT training on a task set (curators)",
                   request=TrainingRunInput, responses={201: TrainingRunOutput})
    def post(self, request):
        return job_launch(request, self, input_serializer=TrainingRunInput, create=services.training_run_create,
                          output_serializer=TrainingRunOutput)


class TrainingRunDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="training_runs_retrieve", responses=TrainingRunOutput)
    def get(self, request, run_id):
        return Response(TrainingRunOutput(get_object_or_404(_runs(), id=run_id), context={"request": request}).data)


@extend_schema_view(post=extend_schema(operation_id="training_runs_cancel", request=None, responses=TrainingRunOutput,
                                       summary="Cancel a run (its creator, reviewers and admins)"))
class TrainingRunCancelApi(JobCancelApi):
    model = TrainingRun
    output_serializer = TrainingRunOutput
    noun = "run"


class TrainingRunMetricsApi(APIView):
    """The run's metrics.jsonl lines as stored, one per step."""

    permission_classes = [IsViewer]

    @extend_schema(operation_id="training_runs_metrics", responses={200: {"type": "array", "items": {"type": "object"}}},
                   summary="The run's metric lines, one object per step")
    def get(self, request, run_id):
        run = get_object_or_404(TrainingRun.objects.only("id"), id=run_id)
        return Response([row.metrics for row in run.metrics.all()])

