"""The REST API of frontier runs: launch on a task set (curators), list and read with the before/after table
(viewers), cancel."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from tasks_app.frontier import selectors, services
from tasks_app.frontier.models import FrontierRun
from tasks_app.frontier.serializers import FrontierRunDetailOutput, FrontierRunInput, FrontierRunOutput
from training_app.shared.job_api import JobCancelApi, job_launch


class FrontierRunListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = FrontierRunOutput

    def get_queryset(self):
        return selectors.frontier_run_list()

    @extend_schema(operation_id="frontier_runs_launch",
                   summary="Re-level a task set for a policy: successors of the tasks outside the band (curators)",
                   request=FrontierRunInput, responses={201: FrontierRunOutput})
    def post(self, request):
        return job_launch(request, self, input_serializer=FrontierRunInput, create=services.frontier_run_create,
                          output_serializer=FrontierRunOutput)


class FrontierRunDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="frontier_runs_retrieve", responses=FrontierRunDetailOutput)
    def get(self, request, run_id):
        run = get_object_or_404(selectors.frontier_run_list(), id=run_id)
        return Response(FrontierRunDetailOutput(run).data)


@extend_schema_view(post=extend_schema(operation_id="frontier_runs_cancel", request=None, responses=FrontierRunOutput))
class FrontierRunCancelApi(JobCancelApi):
    model = FrontierRun
    output_serializer = FrontierRunOutput
    noun = "frontier run"
