"""The REST API of tasks: list, read, DNA, files, regenerate; one class per operation."""

from __future__ import annotations

import mimetypes

from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsViewer
from accounts.roles import Role, has_role
from tasks_app.models import SynthesizedTask
from tasks_app.shared.api import reviewer_context, service_call
from tasks_app.synthesis.serializers import SynthesisRunOutput
from tasks_app.tasks import files as task_files
from tasks_app.tasks import regenerate
from tasks_app.tasks.dna import dna_comparison, task_dna
from tasks_app.tasks.filters import TaskFilter
from tasks_app.tasks.serializers import (
    TaskDetailOutput, TaskDnaOutput, TaskFileOutput, TaskListOutput, TaskRegenerateInput,
)

DNA_CACHE_SECONDS = 3600


def task_payload(task: SynthesizedTask, *, request) -> dict:
    """One task as its caller may see it: reviewers also get the hidden rule and the spec."""
    return TaskDetailOutput(task, context=reviewer_context(request)).data


class TaskListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TaskListOutput
    filterset_class = TaskFilter
    ordering_fields = ["created_at", "reviewed_at", "task_id", "status", "difficulty", "domain_id", "modality", "title"]
    reviewer_ordering_fields = ["rule_family"]
    ordering = ["-created_at", "task_id"]

    def get_queryset(self):
        # Only the list's columns: a task's spec and synthesis log are kilobytes of JSON each, and 500 of them per
        # page were most of the list's time at 10,000 tasks.
        return SynthesizedTask.objects.select_related("seed", "assigned_to").only(*TaskListOutput.Meta.columns)

    def get_serializer_context(self):
        return super().get_serializer_context() | reviewer_context(self.request)

    @extend_schema(operation_id="tasks_list", summary="List tasks (rule_family: reviewers only)")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


def _task(task_id: str) -> SynthesizedTask:
    return get_object_or_404(SynthesizedTask.objects.select_related("seed", "seed__dna", "assigned_to"), task_id=task_id)


class TaskDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="tasks_retrieve", responses=TaskDetailOutput,
                   summary="One task (hidden_rule and spec: reviewers only)")
    def get(self, request, task_id):
        return Response(task_payload(_task(task_id), request=request))


class TaskDnaApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="tasks_dna", responses=TaskDnaOutput,
                   summary="The task's DNA, measured from its public train.csv, beside its seed's")
    def get(self, request, task_id):
        task = _task(task_id)
        key = f"task-dna:{task.bundle_sha256 or task.task_id}"  # a bundle never changes under its hash
        measured = cache.get(key)
        if measured is None:
            target = (task.spec.get("domain") or {}).get("target_name", "")
            measured = task_dna(bundle_dir=task.bundle_dir, target=target, task_type=task.task_type,
                                metric=task.metric, modality=task.modality)
            cache.set(key, measured, DNA_CACHE_SECONDS)
        seed_dna = task.seed.dna.data if hasattr(task.seed, "dna") else {}
        return Response(TaskDnaOutput({
            "task_id": task.task_id, "seed": task.seed.name, "seed_dna": seed_dna, "task_dna": measured,
            "differences": [row.__dict__ for row in dna_comparison(seed_dna, measured)],
        }).data)


class TaskFileListApi(APIView):
    """A bundle holds a handful of files (public/ and private/), so this list is not paginated."""

    permission_classes = [IsViewer]

    @extend_schema(operation_id="tasks_files_list", responses=TaskFileOutput(many=True),
                   summary="The task's bundle files (private/ only for reviewers)")
    def get(self, request, task_id):
        task = get_object_or_404(SynthesizedTask.objects.only("task_id", "bundle_dir"), task_id=task_id)
        files = task_files.bundle_file_list(bundle_dir=task.bundle_dir,
                                            include_private=has_role(request.user, Role.REVIEWER))
        return Response(TaskFileOutput([
            {"path": file.path, "size": file.size, "private": file.private,
             "url": request.build_absolute_uri(reverse("api-task-file", args=[task.task_id, file.path]))}
            for file in files
        ], many=True).data)


class TaskRegenerateApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(operation_id="tasks_regenerate", request=TaskRegenerateInput, responses={202: SynthesisRunOutput},
                   summary="Regenerate a task: a one-task synthesis run from its seed and rule family with a new rng, "
                           "whose task is a new version linked to this one (curators)")
    def post(self, request, task_id):
        task = get_object_or_404(SynthesizedTask.objects.select_related("seed"), task_id=task_id)
        data = TaskRegenerateInput(data=request.data)
        data.is_valid(raise_exception=True)
        run = service_call(lambda: regenerate.task_regenerate(task=task, user=request.user,
                                                               rng=data.validated_data["rng"]))
        return Response(SynthesisRunOutput(run).data, status=status.HTTP_202_ACCEPTED)


class TaskFileDownloadApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="tasks_files_download", summary="Download one bundle file (private/: reviewers)",
                   responses={(200, "application/octet-stream"): OpenApiTypes.BINARY,
                              403: OpenApiResponse(description="a private file, for a caller without the reviewer role"),
                              404: OpenApiResponse(description="no such file in the bundle")})
    def get(self, request, task_id, path):
        task = get_object_or_404(SynthesizedTask.objects.only("task_id", "bundle_dir"), task_id=task_id)
        is_reviewer = has_role(request.user, Role.REVIEWER)
        if path.startswith(task_files.PRIVATE) and not is_reviewer:
            raise PermissionDenied("Private files need the reviewer role.")
        content = task_files.bundle_file_read(bundle_dir=task.bundle_dir, path=path, include_private=is_reviewer)
        if content is None:
            return Response({"detail": f"no file {path!r} in the task's bundle"}, status=status.HTTP_404_NOT_FOUND)
        response = HttpResponse(content, content_type=mimetypes.guess_type(path)[0] or "application/octet-stream")
        response["Content-Disposition"] = f'attachment; filename="{path.rsplit("/", 1)[-1]}"'
        return response
