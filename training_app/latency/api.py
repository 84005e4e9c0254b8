"""The REST API of latency studies: list, launch (JSON naming a task, or multipart with a table), read, cancel."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsViewer
from sandmle_web.errors import ServiceError
from sandmle_web.parsers import BoundedJSONParser
from tasks_app.models import Seed, SynthesizedTask
from training_app.latency import selectors, services
from training_app.latency.uploads import limit_table_upload
from training_app.models import LatencyStudy
from training_app.shared.job_api import JobCancelApi
from training_app.latency.serializers import LatencyStudyInput, LatencyStudyOutput


class LatencyStudyListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = LatencyStudyOutput
    parser_classes = [BoundedJSONParser, MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.latency_study_list()

    def initialize_request(self, request, *args, **kwargs):
        # Before authentication (whose CSRF check may read the body) and parsing: the table's limit comes first.
        self.table_limit = limit_table_upload(request) if request.method == "POST" else None
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(operation_id="latency_studies_launch", request=LatencyStudyInput,
                   responses={201: LatencyStudyOutput})
    def post(self, request):
        if not IsCurator().has_permission(request, self):
            return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
        data = LatencyStudyInput(data=request.data)
        if self.table_limit is not None and self.table_limit.refused:
            raise ValidationError({"table": [self.table_limit.refused]})
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        task_id = fields.pop("task")
        task = None
        if task_id:
            task = SynthesizedTask.objects.filter(task_id=task_id).first()
            if task is None:
                raise ValidationError({"task": [f"no task {task_id!r}"]})
        seed_name, seed = fields.pop("seed"), None
        if seed_name:
            seed = Seed.objects.filter(name=seed_name).first()
            if seed is None:
                raise ValidationError({"seed": [f"no seed {seed_name!r}"]})
        try:
            study = services.latency_study_create(task=task, seed=seed, user=request.user, **fields)
        except ServiceError as error:
            raise ValidationError({error.field: [str(error)]}) from None
        return Response(LatencyStudyOutput(study).data, status=status.HTTP_201_CREATED)


class LatencyStudyDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="latency_studies_retrieve", responses=LatencyStudyOutput)
    def get(self, request, study_id):
        return Response(LatencyStudyOutput(get_object_or_404(LatencyStudy, id=study_id)).data)


@extend_schema_view(post=extend_schema(operation_id="latency_studies_cancel", request=None,
                                       responses=LatencyStudyOutput))
class LatencyStudyCancelApi(JobCancelApi):
    model = LatencyStudy
    output_serializer = LatencyStudyOutput
    noun = "latency study"

