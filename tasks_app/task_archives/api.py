"""The REST API of task-set archives: queue an export and fetch its file, upload an archive to import (reviewers)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsReviewer
from sandmle_web.errors import ServiceError
from tasks_app.models import TaskSet
from tasks_app.task_archives import services
from tasks_app.task_archives.models import TaskArchiveImport, TaskSetExport
from tasks_app.task_archives.views import export_file_response
from tasks_app.task_archives.serializers import ExportInput, ExportOutput, ImportInput, ImportOutput


def _service_call(call):
    try:
        return call()
    except ServiceError as error:
        raise ValidationError({error.field: [str(error)]}) from None


class TaskSetExportListApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(operation_id="task_sets_exports_list", summary="A task set's archives (reviewers)",
                   responses=ExportOutput(many=True))
    def get(self, request, name):
        task_set = get_object_or_404(TaskSet, name=name)
        return Response(ExportOutput(task_set.exports.select_related("task_set").order_by("-id")[:50], many=True).data)

    @extend_schema(operation_id="task_sets_exports_create",
                   summary="Build the task set as an archive: mlebench, sandmle or bundle (reviewers: answers travel)",
                   request=ExportInput, responses={202: ExportOutput, 200: ExportOutput})
    def post(self, request, name):
        task_set = get_object_or_404(TaskSet, name=name)
        data = ExportInput(data=request.data)
        data.is_valid(raise_exception=True)
        export = _service_call(lambda: services.task_set_export_create(
            task_set=task_set, fmt=data.validated_data["format"], user=request.user))
        ready = export.state == "succeeded"
        return Response(ExportOutput(export).data, status=status.HTTP_200_OK if ready else status.HTTP_202_ACCEPTED)


class TaskSetExportDetailApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(operation_id="task_set_exports_retrieve", responses=ExportOutput)
    def get(self, request, export_id):
        return Response(ExportOutput(get_object_or_404(TaskSetExport.objects.select_related("task_set"),
                                                       id=export_id)).data)


class TaskSetExportArchiveApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(operation_id="task_set_exports_archive", summary="The export's .tar.gz (reviewers)",
                   responses={(200, "application/gzip"): OpenApiTypes.BINARY,
                              404: OpenApiResponse(description="not built (yet), or failed")})
    def get(self, request, export_id):
        return export_file_response(get_object_or_404(TaskSetExport.objects.select_related("task_set"), id=export_id))


class TaskArchiveImportListApi(APIView):
    permission_classes = [IsReviewer]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(operation_id="task_archive_imports_list", summary="Recent archive imports (reviewers)",
                   responses=ImportOutput(many=True))
    def get(self, request):
        return Response(ImportOutput(TaskArchiveImport.objects.order_by("-id")[:50], many=True).data)

    @extend_schema(operation_id="task_archive_imports_create",
                   summary="Upload a task archive to import its tasks, which then wait for review (reviewers)",
                   request={"multipart/form-data": ImportInput}, responses={202: ImportOutput})
    def post(self, request):
        data = ImportInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        job = _service_call(lambda: services.task_archive_import_create(
            upload=values["file"], fmt=values["format"], metric=values["metric"], user=request.user))
        return Response(ImportOutput(job).data, status=status.HTTP_202_ACCEPTED)


class TaskArchiveImportDetailApi(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(operation_id="task_archive_imports_retrieve", responses=ImportOutput)
    def get(self, request, import_id):
        return Response(ImportOutput(get_object_or_404(TaskArchiveImport, id=import_id)).data)
