"""The REST API of evaluation campaigns: launch, watch, cancel, read the transfer report; routes in `urlpatterns`."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from training_app.job_api import JobCancelApi, job_launch
from training_app import campaign_selectors as selectors
from training_app import campaign_services as services
from training_app.models import EvalCampaign, RolloutBatch


class CampaignInput(serializers.Serializer):
    task_set = serializers.SlugField()
    policies = serializers.ListField(child=serializers.CharField(max_length=500), min_length=1)
    scaffolds = serializers.ListField(child=serializers.ChoiceField(choices=RolloutBatch.Scaffold.values), min_length=1)
    seeds = serializers.IntegerField(min_value=1, max_value=20, default=3)
    baseline = serializers.CharField(max_length=500, required=False, allow_blank=True, allow_null=True, default=None)
    feedback = serializers.ChoiceField(choices=RolloutBatch.Feedback.values, default="score")
    max_turns = serializers.IntegerField(min_value=1, max_value=100, default=15)
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class CampaignOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    episodes = serializers.IntegerField(source="episodes.count", read_only=True)

    class Meta:
        model = EvalCampaign
        fields = ["id", "name", "task_set", "spec", "queue", "state", "progress", "progress_message", "error",
                  "episodes", "created_at", "started_at", "finished_at"]


class CampaignListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = CampaignOutput

    def get_queryset(self):
        return selectors.campaign_list()

    def post(self, request):
        return job_launch(request, self, input_serializer=CampaignInput, create=services.campaign_create,
                          output_serializer=CampaignOutput)


class CampaignDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, campaign_id):
        return Response(CampaignOutput(get_object_or_404(EvalCampaign, id=campaign_id)).data)


class CampaignCancelApi(JobCancelApi):
    model = EvalCampaign
    output_serializer = CampaignOutput
    noun = "campaign"


class CampaignReportApi(APIView):
    """The engine's transfer report as stored (policies, scaffolds, baseline, metrics, cells)."""

    permission_classes = [IsViewer]

    def get(self, request, campaign_id):
        return Response(get_object_or_404(EvalCampaign, id=campaign_id).report)


urlpatterns = [
    path("campaigns/", CampaignListApi.as_view(), name="api-campaign-list"),
    path("campaigns/<int:campaign_id>/", CampaignDetailApi.as_view(), name="api-campaign-detail"),
    path("campaigns/<int:campaign_id>/cancel/", CampaignCancelApi.as_view(), name="api-campaign-cancel"),
    path("campaigns/<int:campaign_id>/report/", CampaignReportApi.as_view(), name="api-campaign-report"),
]
