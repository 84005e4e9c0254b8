"""What the job APIs (rollout batches, campaigns, training runs) share: launching from a task set and cancelling."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator
from sandmle_web.errors import ServiceError
from tasks_app.models import TaskSet


def job_launch(request, view, *, input_serializer, create, output_serializer) -> Response:
    """Validate the body, find its task set by name and call `create(task_set=, user=, **fields)`; 201 with the job."""
    if not IsCurator().has_permission(request, view):
        return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
    data = input_serializer(data=request.data)
    data.is_valid(raise_exception=True)
    fields = dict(data.validated_data)
    task_set = TaskSet.objects.filter(name=fields.pop("task_set")).first()
    if task_set is None:
        raise ValidationError({"task_set": [f"no task set named {request.data.get('task_set')!r}"]})
    if task_set.retired_at is not None:
        raise ValidationError({"task_set": [f"task set {task_set.name} is retired; clone it to launch on its tasks"]})
    try:
        job = create(task_set=task_set, user=request.user, **fields)
    except ServiceError as error:
        raise ValidationError({error.field: [str(error)]}) from None
    return Response(output_serializer(job).data, status=status.HTTP_201_CREATED)


class JobCancelApi(APIView):
    """POST cancels the job named by the URL's one id: its creator, reviewers and admins may; the actor is kept."""

    permission_classes = [IsCurator]
    model = None
    output_serializer = None
    noun = "job"

    def post(self, request, **url_ids):
        (job_id,) = url_ids.values()
        job = get_object_or_404(self.model, id=job_id)
        if not job.may_be_cancelled_by(request.user):
            return Response({"detail": f"Only the {self.noun}'s creator, reviewers and admins may cancel it."},
                            status=status.HTTP_403_FORBIDDEN)
        self.model.request_cancel(job.id, actor=request.user)
        job.refresh_from_db()
        return Response(self.output_serializer(job).data)
