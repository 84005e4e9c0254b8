"""The REST API of evaluation campaigns: launch, watch, cancel, read the transfer report; routes in `urlpatterns`."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator, IsViewer
from tasks_app.models import TaskSet
from tasks_app.services import ServiceError
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
        if not IsCurator().has_permission(request, self):
            return Response({"detail": IsCurator.message}, status=status.HTTP_403_FORBIDDEN)
        data = CampaignInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        task_set = TaskSet.objects.filter(name=fields.pop("task_set")).first()
        if task_set is None:
            raise ValidationError({"task_set": [f"no task set named {request.data.get('task_set')!r}"]})
        try:
            campaign = services.campaign_create(task_set=task_set, user=request.user, **fields)
        except ServiceError as error:
            raise ValidationError({error.field: [str(error)]}) from None
        return Response(CampaignOutput(campaign).data, status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    permission_classes = [IsViewer]

    def get(self, request, campaign_id):
        return Response(CampaignOutput(get_object_or_404(EvalCampaign, id=campaign_id)).data)


class CampaignCancelApi(APIView):
    permission_classes = [IsCurator]

    def post(self, request, campaign_id):
        campaign = get_object_or_404(EvalCampaign, id=campaign_id)
        if not campaign.may_be_cancelled_by(request.user):
            return Response({"detail": "Only the campaign's creator, reviewers and admins may cancel it."}, status=403)
        EvalCampaign.request_cancel(campaign.id, actor=request.user)
        campaign.refresh_from_db()
        return Response(CampaignOutput(campaign).data)


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
