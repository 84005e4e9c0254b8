"""The REST API of the rollout side: launch, watch, cancel batches and read trajectories."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.models import RolloutBatch, Trajectory
from training_app.rollouts import selectors, services
from training_app.rollouts.filters import RolloutBatchFilter, TrajectoryFilter
from training_app.rollouts.serializers import (
    RolloutBatchInput, RolloutBatchListOutput, RolloutBatchOutput, TrajectoryDetailOutput, TrajectoryOutput,
)
from training_app.shared.job_api import JobCancelApi, job_launch

TRAJECTORY_ORDERING = ["created_at", "task__task_id", "sample_index", "reward", "score", "n_turns", "wall_s"]


class RolloutBatchListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = RolloutBatchListOutput
    filterset_class = RolloutBatchFilter
    ordering_fields = ["created_at", "finished_at", "state", "scaffold"]
    ordering = ["-created_at", "-id"]

    def get_queryset(self):
        return selectors.rollout_batch_list().defer("summary")

    @extend_schema(operation_id="rollout_batches_list", summary="List rollout batches")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="rollout_batches_launch", summary="Launch a rollout batch on a task set (curators)",
                   request=RolloutBatchInput, responses={201: RolloutBatchOutput})
    def post(self, request):
        return job_launch(request, self, input_serializer=RolloutBatchInput, create=services.rollout_batch_create,
                          output_serializer=RolloutBatchOutput)


class RolloutBatchDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="rollout_batches_retrieve", responses=RolloutBatchOutput)
    def get(self, request, batch_id):
        return Response(RolloutBatchOutput(get_object_or_404(RolloutBatch.objects.select_related("task_set"),
                                                             id=batch_id)).data)


@extend_schema_view(post=extend_schema(operation_id="rollout_batches_cancel", request=None,
                                       responses=RolloutBatchOutput,
                                       summary="Cancel a batch (its creator, reviewers and admins)"))
class RolloutBatchCancelApi(JobCancelApi):
    model = RolloutBatch
    output_serializer = RolloutBatchOutput
    noun = "batch"


def _trajectory_rows():
    return Trajectory.objects.select_related("task").only(*TrajectoryOutput.Meta.columns)


class TrajectoryListApi(ListAPIView):
    """Every trajectory, across batches; filter by batch, scaffold, task, termination, milestone, validity."""

    permission_classes = [IsViewer]
    serializer_class = TrajectoryOutput
    filterset_class = TrajectoryFilter
    ordering_fields = TRAJECTORY_ORDERING
    ordering = ["-created_at", "-id"]

    def get_queryset(self):
        return _trajectory_rows()

    @extend_schema(operation_id="trajectories_list", summary="List trajectories (without their records)")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class BatchTrajectoryListApi(ListAPIView):
    """One batch's trajectories, in task and sample order unless `ordering` says otherwise."""

    permission_classes = [IsViewer]
    serializer_class = TrajectoryOutput
    filterset_class = TrajectoryFilter
    ordering_fields = TRAJECTORY_ORDERING
    # By the task's row, as the batch page pages: the (batch, task, sample_index) unique index yields a page of a
    # 100,000-row batch without sorting it (sorting by the task's name joined and sorted every row: 1 s and more).
    ordering = ["task_id", "sample_index"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return Trajectory.objects.none()
        batch = get_object_or_404(RolloutBatch.objects.only("id"), id=self.kwargs["batch_id"])
        return _trajectory_rows().filter(batch=batch)

    @extend_schema(operation_id="rollout_batches_trajectories", summary="A batch's trajectories (without records)")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class TrajectoryDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="trajectories_retrieve", responses=TrajectoryDetailOutput,
                   summary="One trajectory with its record (turns, tokens, masks, grade, rewards)")
    def get(self, request, trajectory_id):
        trajectory = get_object_or_404(Trajectory.objects.select_related("task").only(
            *TrajectoryOutput.Meta.columns, "record"), id=trajectory_id)
        return Response(TrajectoryDetailOutput(trajectory).data)
