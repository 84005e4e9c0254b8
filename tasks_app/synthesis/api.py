"""The REST API of synthesis runs: list, launch, read, cancel."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsViewer
from tasks_app.models import Seed, SynthesisRun
from tasks_app.shared.api import refuse_unless_curator, service_call
from tasks_app.synthesis import services
from tasks_app.synthesis.filters import SynthesisRunFilter
from tasks_app.synthesis.serializers import SynthesisRunInput, SynthesisRunListOutput, SynthesisRunOutput


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
        refuse_unless_curator(request, self)
        data = SynthesisRunInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        seed = Seed.objects.filter(name=fields.pop("seed")).first()
        if seed is None:
            raise ValidationError({"seed": [f"no seed named {request.data.get('seed')!r}"]})
        run = service_call(lambda: services.synthesis_run_create(seed=seed, user=request.user, **fields))
        return Response(SynthesisRunOutput(run, context={"request": request}).data, status=status.HTTP_201_CREATED)


class SynthesisRunDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="synthesis_runs_retrieve", responses=SynthesisRunOutput)
    def get(self, request, run_id):
        run = get_object_or_404(SynthesisRun.objects.select_related("seed"), id=run_id)
        return Response(SynthesisRunOutput(run, context={"request": request}).data)


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
        return Response(SynthesisRunOutput(run, context={"request": request}).data)
