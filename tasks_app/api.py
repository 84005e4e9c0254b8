"""The REST API of the task side: one class per operation; it validates, then calls a service."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsReviewer, IsViewer
from accounts.roles import Role, has_role
from tasks_app import bundle_files, selectors, services
from tasks_app.models import Seed, SynthesisRun, SynthesizedTask, TaskSet
from tasks_app.serializers import (
    CommentInput, CommentOutput, RejectInput, ReviewDecisionInput, SeedOutput, SeedUploadInput, SynthesisRunInput,
    SynthesisRunOutput, TaskOutput, TaskSetInput, TaskSetOutput,
)


def _service_call(call):
    """Turn a service's refusal into a 400 naming the field at fault."""
    try:
        return call()
    except services.ServiceError as error:
        raise ValidationError({error.field: [str(error)]}) from None


def task_payload(task: SynthesizedTask, *, user) -> dict:
    data = TaskOutput(task).data
    if has_role(user, Role.REVIEWER):
        data["rule_family"] = task.rule_family
        data["hidden_rule"] = bundle_files.read_json(task.bundle_dir, "private/rule.json")
        data["spec"] = task.spec
    return data


class SeedListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = SeedOutput

    def get_queryset(self):
        return selectors.seed_list()

    def post(self, request):
        if not IsCurator().has_permission(request, self):
            return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
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

    def get(self, request, name):
        return Response(SeedOutput(get_object_or_404(Seed.objects.select_related("dna"), name=name)).data)


class SynthesisRunListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = SynthesisRunOutput

    def get_queryset(self):
        return selectors.synthesis_run_list()

    def post(self, request):
        if not IsCurator().has_permission(request, self):
            return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
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

    def get(self, request, run_id):
        return Response(SynthesisRunOutput(get_object_or_404(SynthesisRun, id=run_id)).data)


class SynthesisRunCancelApi(APIView):
    permission_classes = [IsCurator]

    def post(self, request, run_id):
        run = get_object_or_404(SynthesisRun, id=run_id)
        if not run.may_be_cancelled_by(request.user):
            return Response({"detail": "Only the run's creator, reviewers and admins may cancel it."},
                            status=status.HTTP_403_FORBIDDEN)
        SynthesisRun.request_cancel(run.id, actor=request.user)
        run.refresh_from_db()
        return Response(SynthesisRunOutput(run).data)


class TaskListApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request):
        filters = {key: request.query_params.get(key, "") for key in ("status", "seed", "modality")}
        if filters["status"] and filters["status"] not in SynthesizedTask.Status.values:
            raise ValidationError({"status": [f"expected one of {', '.join(SynthesizedTask.Status.values)}"]})
        run = request.query_params.get("run", "")
        # str.isdigit() accepts '²', and a 20-digit id overflows the database's integer.
        if run and not (run.isascii() and run.isdigit() and len(run) <= 18):
            raise ValidationError({"run": ["expected a run id (a whole number)"]})
        tasks = selectors.task_list(**filters, run_id=int(run) if run else None)[:500]
        return Response([task_payload(task, user=request.user) for task in tasks])


class TaskDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, task_id):
        task = get_object_or_404(SynthesizedTask.objects.select_related("seed"), task_id=task_id)
        data = task_payload(task, user=request.user)
        data["comments"] = CommentOutput(selectors.task_comments_for(task=task, user=request.user), many=True).data
        return Response(data)


class TaskApproveApi(APIView):
    permission_classes = [IsReviewer]

    def post(self, request, task_id):
        task = get_object_or_404(SynthesizedTask, task_id=task_id)
        data = ReviewDecisionInput(data=request.data)
        data.is_valid(raise_exception=True)
        task = _service_call(lambda: services.task_approve(task=task, user=request.user, comment=data.validated_data["comment"]))
        return Response(task_payload(task, user=request.user))


class TaskRejectApi(APIView):
    permission_classes = [IsReviewer]

    def post(self, request, task_id):
        task = get_object_or_404(SynthesizedTask, task_id=task_id)
        data = RejectInput(data=request.data)
        data.is_valid(raise_exception=True)
        task = _service_call(lambda: services.task_reject(task=task, user=request.user, reason=data.validated_data["reason"]))
        return Response(task_payload(task, user=request.user))


class TaskCommentApi(APIView):
    permission_classes = [IsReviewer]

    def post(self, request, task_id):
        task = get_object_or_404(SynthesizedTask, task_id=task_id)
        data = CommentInput(data=request.data)
        data.is_valid(raise_exception=True)
        comment = _service_call(lambda: services.task_comment_add(task=task, user=request.user, **data.validated_data))
        return Response(CommentOutput(comment).data, status=status.HTTP_201_CREATED)


class TaskSetListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TaskSetOutput

    def get_queryset(self):
        return TaskSet.objects.prefetch_related("tasks")

    def post(self, request):
        if not IsCurator().has_permission(request, self):
            return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
        data = TaskSetInput(data=request.data)
        data.is_valid(raise_exception=True)
        task_set = _service_call(lambda: services.task_set_create(user=request.user, **data.validated_data))
        return Response(TaskSetOutput(task_set).data, status=status.HTTP_201_CREATED)
