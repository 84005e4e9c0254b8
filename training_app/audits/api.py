"""The REST API of task-set audits: list, launch, read (with verdicts and degenerate scores), cancel."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.audits import selectors, services
from training_app.audits.models import TaskSetAudit
from training_app.audits.serializers import TaskSetAuditDetailOutput, TaskSetAuditInput, TaskSetAuditOutput
from training_app.shared.job_api import JobCancelApi, job_launch


class AuditListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = TaskSetAuditOutput

    def get_queryset(self):
        return selectors.audit_list()

    @extend_schema(operation_id="audits_launch", request=TaskSetAuditInput, responses={201: TaskSetAuditOutput})
    def post(self, request):
        return job_launch(request, self, input_serializer=TaskSetAuditInput, create=services.audit_create,
                          output_serializer=TaskSetAuditOutput)


class AuditDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="audits_retrieve", responses=TaskSetAuditDetailOutput)
    def get(self, request, audit_id):
        audit = get_object_or_404(TaskSetAudit.objects.select_related("task_set"), id=audit_id)
        return Response(TaskSetAuditDetailOutput(audit).data)


@extend_schema_view(post=extend_schema(operation_id="audits_cancel", request=None, responses=TaskSetAuditOutput))
class AuditCancelApi(JobCancelApi):
    model = TaskSetAudit
    output_serializer = TaskSetAuditOutput
    noun = "audit"

