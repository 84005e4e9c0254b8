"""The REST API of the rollout side: launch, watch, cancel batches and read trajectories."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.job_api import JobCancelApi, job_launch
from training_app import selectors, services
from training_app.models import RolloutBatch, Trajectory
from training_app.serializers import RolloutBatchInput, RolloutBatchOutput, TrajectoryOutput


class RolloutBatchListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = RolloutBatchOutput

    def get_queryset(self):
        return selectors.rollout_batch_list()

    def post(self, request):
        return job_launch(request, self, input_serializer=RolloutBatchInput, create=services.rollout_batch_create,
                          output_serializer=RolloutBatchOutput)


class RolloutBatchDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, batch_id):
        return Response(RolloutBatchOutput(get_object_or_404(RolloutBatch, id=batch_id)).data)


class RolloutBatchCancelApi(JobCancelApi):
    model = RolloutBatch
    output_serializer = RolloutBatchOutput
    noun = "batch"


class TrajectoryListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TrajectoryOutput

    def get_queryset(self):
        batch = get_object_or_404(RolloutBatch, id=self.kwargs["batch_id"])
        return selectors.trajectory_list(batch=batch, task_id=self.request.query_params.get("task", ""))


class TrajectoryDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, trajectory_id):
        trajectory = get_object_or_404(Trajectory.objects.select_related("task"), id=trajectory_id)
        return Response(TrajectoryOutput(trajectory).data | {"record": trajectory.record})
