"""The REST API of the rollout side: launch, watch, cancel batches and read trajectories."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsViewer
from tasks_app.models import TaskSet
from tasks_app.services import ServiceError
from training_app import selectors, services
from training_app.models import RolloutBatch, Trajectory
from training_app.serializers import RolloutBatchInput, RolloutBatchOutput, TrajectoryOutput


class RolloutBatchListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = RolloutBatchOutput

    def get_queryset(self):
        return selectors.rollout_batch_list()

    def post(self, request):
        if not IsCurator().has_permission(request, self):
            return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
        data = RolloutBatchInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        task_set = TaskSet.objects.filter(name=fields.pop("task_set")).first()
        if task_set is None:
            raise ValidationError({"task_set": [f"no task set named {request.data.get('task_set')!r}"]})
        try:
            batch = services.rollout_batch_create(task_set=task_set, user=request.user, **fields)
        except ServiceError as error:
            raise ValidationError({error.field: [str(error)]}) from None
        return Response(RolloutBatchOutput(batch).data, status=status.HTTP_201_CREATED)


class RolloutBatchDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, batch_id):
        return Response(RolloutBatchOutput(get_object_or_404(RolloutBatch, id=batch_id)).data)


class RolloutBatchCancelApi(APIView):
    permission_classes = [IsCurator]

    def post(self, request, batch_id):
        batch = get_object_or_404(RolloutBatch, id=batch_id)
        if not batch.may_be_cancelled_by(request.user):
            return Response({"detail": "Only the batch's creator, reviewers and admins may cancel it."},
                            status=status.HTTP_403_FORBIDDEN)
        RolloutBatch.request_cancel(batch.id, actor=request.user)
        batch.refresh_from_db()
        return Response(RolloutBatchOutput(batch).data)


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
