"""The REST API of evaluation campaigns: launch, watch, cancel, read the transfer report."""

from __future__ import annotations

from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.campaigns import selectors, services
from training_app.campaigns.filters import CampaignFilter
from training_app.models import EvalCampaign
from training_app.shared.job_api import JobCancelApi, job_launch
from training_app.campaigns.serializers import CampaignInput, CampaignOutput


def _campaigns():
    # The episode count per row in the same query (a COUNT per campaign was one query per row of a list); the
    # report, the heavy JSON of a campaign, is served by its own endpoint only.
    return selectors.campaign_list().defer("report").annotate(episode_count=Count("episodes"))


class CampaignListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = CampaignOutput
    filterset_class = CampaignFilter
    ordering_fields = ["created_at", "finished_at", "state", "name"]
    ordering = ["-created_at", "-id"]

    def get_queryset(self):
        return _campaigns()

    @extend_schema(operation_id="campaigns_list", summary="List evaluation campaigns")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="campaigns_launch", summary="Launch a campaign on a task set (curators)",
                   request=CampaignInput, responses={201: CampaignOutput})
    def post(self, request):
        return job_launch(request, self, input_serializer=CampaignInput, create=services.campaign_create,
                          output_serializer=CampaignOutput)


class CampaignDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="campaigns_retrieve", responses=CampaignOutput)
    def get(self, request, campaign_id):
        return Response(CampaignOutput(get_object_or_404(_campaigns(), id=campaign_id)).data)


@extend_schema_view(post=extend_schema(operation_id="campaigns_cancel", request=None, responses=CampaignOutput,
                                       summary="Cancel a campaign (its creator, reviewers and admins)"))
class CampaignCancelApi(JobCancelApi):
    model = EvalCampaign
    output_serializer = CampaignOutput
    noun = "campaign"


class CampaignReportApi(APIView):
    """The engine's transfer report as stored (policies, scaffolds, baseline, metrics, cells)."""

    permission_classes = [IsViewer]

    @extend_schema(operation_id="campaigns_report", responses=OpenApiTypes.OBJECT,
                   summary="The transfer report: policies, scaffolds, baseline, metrics and cells ({} until episodes run)")
    def get(self, request, campaign_id):
        return Response(get_object_or_404(EvalCampaign.objects.only("id", "report"), id=campaign_id).report)

