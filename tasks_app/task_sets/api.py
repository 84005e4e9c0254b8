"""The REST API of task sets: list, create (from task ids or a filter), read, edit, clone, retire."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from tasks_app.models import TaskSet
from tasks_app.shared.api import refuse_unless_curator, service_call
from tasks_app.task_sets import picker as task_set_picker
from tasks_app.task_sets import selectors, services
from tasks_app.task_sets.filters import TaskSetFilter
from tasks_app.task_sets.serializers import (TaskSetCloneInput, TaskSetEditInput, TaskSetInput, TaskSetListOutput,
                                             TaskSetOutput)


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
        refuse_unless_curator(request, self)
        data = TaskSetInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        if "filter" in fields:
            picker = task_set_picker.picker_filter(data=fields.pop("filter"), request=request)
            if not picker.is_valid():
                raise ValidationError({"filter": picker.errors})
            task_set = service_call(lambda: services.task_set_create_matching(user=request.user, tasks=picker.qs,
                                                                               **fields))
        else:
            task_set = service_call(lambda: services.task_set_create(user=request.user, **fields))
        return Response(TaskSetOutput(task_set).data, status=status.HTTP_201_CREATED)


class TaskSetDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="task_sets_retrieve", responses=TaskSetOutput)
    def get(self, request, name):
        return Response(TaskSetOutput(_task_set(name)).data)

    @extend_schema(operation_id="task_sets_partial_update", request=TaskSetEditInput, responses=TaskSetOutput,
                   summary="Rename, describe, add approved tasks to or remove tasks from a set (curators)")
    def patch(self, request, name):
        refuse_unless_curator(request, self)
        task_set, data = _task_set(name), TaskSetEditInput(data=request.data)
        data.is_valid(raise_exception=True)
        task_set = service_call(lambda: services.task_set_update(task_set=task_set, **data.validated_data))
        return Response(TaskSetOutput(_task_set(task_set.name)).data)


class TaskSetCloneApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="task_sets_clone", request=TaskSetCloneInput, responses={201: TaskSetOutput},
                   summary="Copy a set (its tasks, description) under a new name (curators)")
    def post(self, request, name):
        refuse_unless_curator(request, self)
        task_set, data = _task_set(name), TaskSetCloneInput(data=request.data)
        data.is_valid(raise_exception=True)
        clone = service_call(lambda: services.task_set_clone(task_set=task_set, user=request.user,
                                                             **data.validated_data))
        return Response(TaskSetOutput(_task_set(clone.name)).data, status=status.HTTP_201_CREATED)


class TaskSetRetireApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="task_sets_retire", request=None, responses=TaskSetOutput,
                   summary="Retire a set: launch forms and endpoints no longer take it (curators)")
    def post(self, request, name):
        refuse_unless_curator(request, self)
        task_set = service_call(lambda: services.task_set_retire(task_set=_task_set(name)))
        return Response(TaskSetOutput(_task_set(task_set.name)).data)


def _task_set(name: str) -> TaskSet:
    return get_object_or_404(TaskSet.objects.select_related("created_by").prefetch_related("tasks"), name=name)
