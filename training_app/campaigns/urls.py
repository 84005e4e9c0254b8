"""Page and API routes of evaluation campaigns."""

from django.urls import path

from training_app.campaigns import api, views

urlpatterns = [
    path("campaigns/", views.campaign_list, name="campaign-list"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:campaign_id>/episodes/", views.campaign_episodes, name="campaign-episodes"),
    path("campaigns/<int:campaign_id>/episodes/<int:episode_id>/", views.campaign_episode_detail,
         name="campaign-episode-detail"),
    path("campaigns/<int:campaign_id>/episodes/<int:episode_id>.json", views.campaign_episode_record,
         name="campaign-episode-record"),
    path("campaigns/<int:campaign_id>/report.<str:fmt>", views.campaign_report_export,
         name="campaign-report-export"),
]

api_urlpatterns = [
    path("campaigns/", api.CampaignListApi.as_view(), name="api-campaign-list"),
    path("campaigns/<int:campaign_id>/", api.CampaignDetailApi.as_view(), name="api-campaign-detail"),
    path("campaigns/<int:campaign_id>/cancel/", api.CampaignCancelApi.as_view(), name="api-campaign-cancel"),
    path("campaigns/<int:campaign_id>/report/", api.CampaignReportApi.as_view(), name="api-campaign-report"),
]
