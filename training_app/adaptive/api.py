"""The REST API of adaptive runs, as the run page offers them: read a run's lineages and successors, approve or reject
a successor waiting under review hold (reviewers), save the run's current frontier as a task set (curators)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsReviewer, IsViewer
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError
from training_app.adaptive import selectors, services
from training_app.models import TrainingRun
from training_app.adaptive.serializers import EnvironmentsOutput, FrontierSetInput, SuccessorDecisionInput


def _run(run_id: int) -> TrainingRun:
    return get_object_or_404(TrainingRun, id=run_id)


FIXED_VIEW = {"adaptive": False, "held": False, "band": None, "counts": {}, "rows": [], "waiting": [], "rates": {},
              "level_changes": [], "frontier": None}  # a run on a fixed set: no lineage moves, no successor waits


def _service(call):
    try:
        return call()
    except ServiceError as error:
        raise ValidationError({error.field: [str(error)]}) from None


class TrainingRunEnvironmentsApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="training_runs_environments", responses=EnvironmentsOutput,
                   summary="An adaptive run's lineages, successors and the successors waiting for a reviewer")
    def get(self, request, run_id):
        run = _run(run_id)
        if not selectors.is_adaptive(run):
            return Response(FIXED_VIEW)
        view = selectors.adaptive_view(run=run, show_rules=has_role(request.user, Role.REVIEWER))
        return Response({**view, "adaptive": True, "frontier": selectors.frontier_now(run)})


class SuccessorDecisionApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(operation_id="training_runs_successor_decide", request=SuccessorDecisionInput,
                   responses={201: {"type": "object"}},
                   summary="Approve or reject a successor waiting under adaptive_review hold (reviewers)")
    def post(self, request, run_id, task_id):
        run = _run(run_id)
        data = SuccessorDecisionInput(data=request.data)
        data.is_valid(raise_exception=True)
        task = _service(lambda: services.adaptive_successor_decide(
            run=run, task_id=task_id, user=request.user, approve=data.validated_data["decision"] == "approve",
            reason=data.validated_data["reason"]))
        return Response({"task_id": task.task_id, "status": task.status}, status=status.HTTP_201_CREATED)


class FrontierSetApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(operation_id="training_runs_frontier_set", request=FrontierSetInput,
                   responses={201: {"type": "object"}},
                   summary="Save the run's current frontier as a task set (curators)")
    def post(self, request, run_id):
        run = _run(run_id)
        data = FrontierSetInput(data=request.data)
        data.is_valid(raise_exception=True)
        task_set = _service(lambda: services.adaptive_frontier_save(run=run, name=data.validated_data["name"].strip(),
                                                                     user=request.user))
        return Response({"name": task_set.name, "tasks": sorted(task_set.tasks.values_list("task_id", flat=True))},
                        status=status.HTTP_201_CREATED)
