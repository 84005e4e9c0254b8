"""The REST API of the task side: one class per operation; it validates, then calls a service or a selector."""

from __future__ import annotations

import mimetypes

from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsViewer
from accounts.roles import Role, has_role
from tasks_app import regenerate, selectors, services, task_files, task_set_picker
from tasks_app.filters import SeedFilter, SynthesisRunFilter, TaskFilter, TaskSetFilter
from tasks_app.models import Seed, SynthesisRun, SynthesizedTask, TaskSet
from tasks_app.serializers import (
    SeedDnaOutput, SeedListOutput, SeedOutput, SeedUploadInput, SynthesisRunInput, SynthesisRunListOutput,
    SynthesisRunOutput, TaskDetailOutput, TaskDnaOutput, TaskFileOutput, TaskListOutput, TaskRegenerateInput,
    TaskSetInput, TaskSetListOutput, TaskSetOutput,
)
from tasks_app.task_dna import dna_comparison, task_dna

DNA_CACHE_SECONDS = 3600


def _service_call(call):
    """Turn a service's refusal into a 400 naming the field at fault."""
    try:
        return call()
    except services.ServiceError as error:
        raise ValidationError({error.field: [str(error)]}) from None


def _refuse_unless_curator(request, view) -> None:
    if not IsCurator().has_permission(request, view):
        raise PermissionDenied(IsCurator.message)


def _reviewer_context(request) -> dict:
    return {"request": request, "is_reviewer": has_role(request.user, Role.REVIEWER)}


def task_payload(task: SynthesizedTask, *, request) -> dict:
    """One task as its caller may see it: reviewers also get the hidden rule and the spec."""
    return TaskDetailOutput(task, context=_reviewer_context(request)).data


class SeedListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = SeedListOutput
    filterset_class = SeedFilter
    ordering_fields = ["name", "created_at", "n_rows", "n_features"]
    ordering = ["name"]
    queryset = Seed.objects.all()

    @extend_schema(operation_id="seeds_list", summary="List seeds")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="seeds_upload", summary="Upload a CSV seed (curators)", request=SeedUploadInput,
                   responses={201: SeedOutput})
    def post(self, request):
        _refuse_unless_curator(request, self)
        data = SeedUploadInput(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        seed = _service_call(lambda: services.seed_create_from_upload(
            name=data.validated_data["name"], content=upload.read(), target=data.validated_data["target"],
            task_type=data.validated_data["task_type"], metric=data.validated_data["metric"], user=request.user,
        ))
        return Response(SeedOutput(seed).data, status=status.HTTP_201_CREATED)


class SeedDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="seeds_retrieve", responses=SeedOutput)
    def get(self, request, name):
        return Response(SeedOutput(get_object_or_404(Seed.objects.select_related("dna"), name=name)).data)


class SeedDnaApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="seeds_dna", summary="A seed's DNA (structural statistics, no rows)",
                   responses=SeedDnaOutput)
    def get(self, request, name):
        seed = get_object_or_404(Seed.objects.select_related("dna"), name=name)
        dna = getattr(seed, "dna", None)
        return Response(SeedDnaOutput({"seed": seed.name, "schema_version": dna.schema_version if dna else None,
                                       "dna": dna.data if dna else {}}).data)


class SynthesisRunListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = SynthesisRunListOutput
    filterset_class = SynthesisRunFilter
    ordering_fields = ["created_at", "finished_at", "state", "count"]
    ordering = ["-created_at", "-id"]

    def get_queryset(self):
        return SynthesisRun.objects.select_related("seed").defer("summary")

    @extend_schema(operation_id="synthesis_runs_list", summary="List synthesis runs")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="synthesis_runs_create", summary="Start a synthesis run (curators)",
                   request=SynthesisRunInput, responses={201: SynthesisRunOutput})
    def post(self, request):
        _refuse_unless_curator(request, self)
        data = SynthesisRunInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        seed = Seed.objects.filter(name=fields.pop("seed")).first()
        if seed is None:
            raise ValidationError({"seed": [f"no seed named {request.data.get('seed')!r}"]})
        run = _service_call(lambda: services.synthesis_run_create(seed=seed, user=request.user, **fields))
        return Response(SynthesisRunOutput(run).data, status=status.HTTP_201_CREATED)


class SynthesisRunDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="synthesis_runs_retrieve", responses=SynthesisRunOutput)
    def get(self, request, run_id):
        return Response(SynthesisRunOutput(get_object_or_404(SynthesisRun.objects.select_related("seed"), id=run_id)).data)


class SynthesisRunCancelApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(operation_id="synthesis_runs_cancel", request=None, responses=SynthesisRunOutput,
                   summary="Cancel a run (its creator, reviewers and admins)")
    def post(self, request, run_id):
        run = get_object_or_404(SynthesisRun, id=run_id)
        if not run.may_be_cancelled_by(request.user):
            return Response({"detail": "Only the run's creator, reviewers and admins may cancel it."},
                            status=status.HTTP_403_FORBIDDEN)
        SynthesisRun.request_cancel(run.id, actor=request.user)
        run.refresh_from_db()
        return Response(SynthesisRunOutput(run).data)


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
        return super().get_serializer_context() | _reviewer_context(self.request)

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
        run = _service_call(lambda: regenerate.task_regenerate(task=task, user=request.user,
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


class TaskSetListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TaskSetListOutput
    filterset_class = TaskSetFilter
    ordering_fields = ["name", "created_at", "task_count"]
    ordering = ["name"]

    def get_queryset(self):
        return selectors.task_set_list().select_related("created_by")

    @extend_schema(operation_id="task_sets_list", summary="List task sets")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="task_sets_create", summary="Make a task set of approved tasks (curators)",
                   request=TaskSetInput, responses={201: TaskSetOutput})
    def post(self, request):
        _refuse_unless_curator(request, self)
        data = TaskSetInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        if "filter" in fields:
            picker = task_set_picker.picker_filter(data=fields.pop("filter"), request=request)
            if not picker.is_valid():
                raise ValidationError({"filter": picker.errors})
            task_set = _service_call(lambda: services.task_set_create_matching(user=request.user, tasks=picker.qs,
                                                                               **fields))
        else:
            task_set = _service_call(lambda: services.task_set_create(user=request.user, **fields))
        return Response(TaskSetOutput(task_set).data, status=status.HTTP_201_CREATED)


class TaskSetDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="task_sets_retrieve", responses=TaskSetOutput)
    def get(self, request, name):
        task_set = get_object_or_404(TaskSet.objects.select_related("created_by").prefetch_related("tasks"), name=name)
        return Response(TaskSetOutput(task_set).data)
