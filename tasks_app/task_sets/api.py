"""The REST API of task sets: list, create (from task ids or a filter), read, edit, clone, retire, restore, history.

Edit, retire and restore are for the set's owner, reviewers and admins (TaskSet.may_be_changed_by); others get 403."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from tasks_app.models import TaskSet
from tasks_app.shared.api import refuse_unless_curator, service_call
from tasks_app.task_sets import picker as task_set_picker
from tasks_app.task_sets import selectors, services
from tasks_app.task_sets.filters import TaskSetFilter
from tasks_app.task_sets.serializers import (TaskSetChangeOutput, TaskSetCloneInput, TaskSetEditInput, TaskSetInput,
                                             TaskSetListOutput, TaskSetOutput, TaskSetRetireInput)


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
                   summary="Rename, describe, add approved tasks to or remove tasks from a set (its owner, reviewers, "
                           "admins)")
    def patch(self, request, name):
        task_set = _changeable_task_set(request, self, name)
        data = TaskSetEditInput(data=request.data)
        data.is_valid(raise_exception=True)
        task_set = service_call(lambda: services.task_set_update(task_set=task_set, user=request.user,
                                                                 **data.validated_data))
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

    @extend_schema(operation_id="task_sets_retire", request=TaskSetRetireInput, responses=TaskSetOutput,
                   summary="Retire a set: launch forms and endpoints no longer take it (its owner, reviewers, admins)")
    def post(self, request, name):
        task_set = _changeable_task_set(request, self, name)
        data = TaskSetRetireInput(data=request.data)
        data.is_valid(raise_exception=True)
        service_call(lambda: services.task_set_retire(task_set=task_set, user=request.user, **data.validated_data))
        return Response(TaskSetOutput(_task_set(name)).data)


class TaskSetRestoreApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="task_sets_restore", request=None, responses=TaskSetOutput,
                   summary="Undo a retirement: launch forms offer the set again (its owner, reviewers, admins)")
    def post(self, request, name):
        task_set = _changeable_task_set(request, self, name)
        service_call(lambda: services.task_set_restore(task_set=task_set, user=request.user))
        return Response(TaskSetOutput(_task_set(name)).data)


class TaskSetHistoryApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="task_sets_history", responses=TaskSetChangeOutput(many=True),
                   summary="Every change to a set, oldest first (retire reasons for reviewers only)")
    def get(self, request, name):
        history = selectors.task_set_history(task_set=_task_set(name), user=request.user)
        return Response(TaskSetChangeOutput(history, many=True).data)


def _task_set(name: str) -> TaskSet:
    return get_object_or_404(TaskSet.objects.select_related("created_by").prefetch_related("tasks"), name=name)


def _changeable_task_set(request, view, name: str) -> TaskSet:
    """The named set, when the caller may change it; 403 with the reason otherwise."""
    refuse_unless_curator(request, view)
    task_set = _task_set(name)
    if not task_set.may_be_changed_by(request.user):
        raise PermissionDenied(task_set.change_refusal())
    return task_set
