"""The REST API of the review workflow: the queue, decisions, reopening, assignments, bulk actions, threaded comments,
audit history and saved views. Each class validates its input, then calls tasks_app.review.services."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsReviewer, IsViewer
from tasks_app.models import ReviewComment, SynthesizedTask
from tasks_app.review import selectors as review_selectors
from tasks_app.review import services as review_services
from tasks_app.review.filters import ReviewQueueFilter
from tasks_app.review.serializers import (
    AssignmentInput, AuditOutput, BulkInput, BulkOutput, CommentInput, DecisionInput, DecisionOutput, QueueTaskOutput,
    ReasonInput, ResolveInput, ReviewStateOutput, SavedViewInput, SavedViewOutput, ThreadOutput,
)
from tasks_app.shared.api import service_call


def _task(task_id: str) -> SynthesizedTask:
    return get_object_or_404(SynthesizedTask.objects.select_related("assigned_to"), task_id=task_id)


def _state(task: SynthesizedTask) -> dict:
    return ReviewStateOutput({
        "task_id": task.task_id, "status": task.status, "review_round": task.review_round,
        "approvals": review_services.approvals_in_round(task=task),
        "min_approvals": settings.SANDMLE_REVIEW_MIN_APPROVALS,
        "assignee": task.assigned_to.username if task.assigned_to_id else None,
    }).data


def _valid(serializer_class, request):
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data


class ReviewQueueApi(ListAPIView):
    """Tasks waiting for review (or of the status asked for), oldest first, with their approvals this round."""

    permission_classes = [IsReviewer]
    serializer_class = QueueTaskOutput
    filter_backends = [DjangoFilterBackend]
    filterset_class = ReviewQueueFilter

    def get_queryset(self):
        return review_selectors.review_queue_rows()


class TaskReviewsApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(responses=DecisionOutput(many=True))
    def get(self, request, task_id):
        return Response(DecisionOutput(_task(task_id).decisions.select_related("reviewer"), many=True).data)

    @extend_schema(request=DecisionInput, responses=ReviewStateOutput)
    def post(self, request, task_id):
        task, data = _task(task_id), _valid(DecisionInput, request)
        task = service_call(lambda: review_services.review_decide(task=task, user=request.user, **data))
        return Response(_state(task), status=status.HTTP_201_CREATED)


class TaskReopenApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(request=ReasonInput, responses=ReviewStateOutput)
    def post(self, request, task_id):
        task, data = _task(task_id), _valid(ReasonInput, request)
        task = service_call(lambda: review_services.review_reopen(task=task, user=request.user, **data))
        return Response(_state(task))


class TaskRetireApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(request=ReasonInput, responses=ReviewStateOutput)
    def post(self, request, task_id):
        task, data = _task(task_id), _valid(ReasonInput, request)
        task = service_call(lambda: review_services.review_retire(task=task, user=request.user, **data))
        return Response(_state(task))


class TaskAssignmentApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(responses=ReviewStateOutput)
    def get(self, request, task_id):
        return Response(_state(_task(task_id)))

    @extend_schema(request=AssignmentInput, responses=ReviewStateOutput)
    def post(self, request, task_id):
        task, data = _task(task_id), _valid(AssignmentInput, request)

        def assign():
            assignee = review_services.reviewer_by_username(data["assignee"]) if data["assignee"] else None
            return review_services.review_assign(task=task, user=request.user, assignee=assignee, reason=data["reason"])

        return Response(_state(service_call(assign)))


class ReviewBulkApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(request=BulkInput, responses=BulkOutput)
    def post(self, request):
        data = _valid(BulkInput, request)

        def bulk():
            assignee = None
            if data["action"] == "assign" and data["assignee"]:
                assignee = review_services.reviewer_by_username(data["assignee"])
            return review_services.review_bulk(task_ids=data["task_ids"], user=request.user, action=data["action"],
                                               reason=data["reason"], assignee=assignee)

        return Response(BulkOutput({"results": service_call(bulk)}).data)


class TaskAuditApi(APIView):
    """Every status and assignee change of the task; the reasons people wrote for reviewers only."""

    permission_classes = [IsViewer]

    @extend_schema(responses=AuditOutput(many=True))
    def get(self, request, task_id):
        return Response(AuditOutput(review_selectors.audit_history(task=_task(task_id), user=request.user),
                                    many=True).data)


class TaskThreadsApi(APIView):
    """Comment threads on the task (or, with ?trajectory=ID, on that trajectory's turns) the caller may read."""

    permission_classes = [IsViewer]

    @extend_schema(responses=ThreadOutput(many=True))
    def get(self, request, task_id):
        task = _task(task_id)
        trajectory = None
        raw = request.query_params.get("trajectory", "")
        if raw:
            if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
                raise ValidationError({"trajectory": ["expected a trajectory id (a whole number)"]})
            trajectory = get_object_or_404(task.trajectories.only("id", "task_id"), id=int(raw))
        threads = review_selectors.comment_threads(task=task, user=request.user, trajectory=trajectory)
        return Response(ThreadOutput(threads, many=True).data)

    @extend_schema(request=CommentInput, responses=ThreadOutput)
    def post(self, request, task_id):
        if not IsReviewer().has_permission(request, self):
            return Response({"detail": IsReviewer.message}, status=status.HTTP_403_FORBIDDEN)
        task, data = _task(task_id), _valid(CommentInput, request)
        parent = trajectory = None
        if data.get("parent"):
            parent = ReviewComment.objects.filter(id=data["parent"], task=task).first()
            if parent is None:
                raise ValidationError({"parent": ["no comment of this task has that id"]})
        if data.get("trajectory"):
            trajectory = task.trajectories.only("id", "task_id", "n_records").filter(id=data["trajectory"]).first()
            if trajectory is None:
                raise ValidationError({"trajectory": ["no trajectory of this task has that id"]})
        comment = service_call(lambda: review_services.comment_add(
            task=task, user=request.user, body=data["body"], visibility=data["visibility"], parent=parent,
            trajectory=trajectory, turn=data.get("turn")))
        comment.thread_replies = []
        return Response(ThreadOutput(comment).data, status=status.HTTP_201_CREATED)


class CommentResolveApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(request=ResolveInput, responses=ThreadOutput)
    def post(self, request, comment_id):
        comment = get_object_or_404(ReviewComment, id=comment_id)
        data = _valid(ResolveInput, request)
        root = review_services.comment_resolve(comment=comment, user=request.user, resolved=data["resolved"])
        root.thread_replies = list(root.replies.select_related("author"))
        return Response(ThreadOutput(root).data)


class SavedViewListApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(responses=SavedViewOutput(many=True))
    def get(self, request):
        return Response(SavedViewOutput(review_selectors.saved_views_for(user=request.user), many=True).data)

    @extend_schema(request=SavedViewInput, responses=SavedViewOutput)
    def post(self, request):
        data = _valid(SavedViewInput, request)
        view = service_call(lambda: review_services.saved_view_save(user=request.user, **data))
        return Response(SavedViewOutput(view).data, status=status.HTTP_201_CREATED)


class SavedViewDetailApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(responses={204: None})
    def delete(self, request, view_id):
        service_call(lambda: review_services.saved_view_delete(user=request.user, view_id=view_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
