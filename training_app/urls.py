"""Page URLs of the training side."""

from django.urls import path

from training_app import views, views_campaigns, views_latency, views_training
from training_app.audits import urls as audit_urls

urlpatterns = [
    path("rollouts/", views.rollout_batch_list, name="rollout-batch-list"),
    path("rollouts/<int:batch_id>/", views.rollout_batch_detail, name="rollout-batch-detail"),
    path("rollouts/<int:batch_id>/trajectories.jsonl", views.rollout_batch_export, name="rollout-batch-export"),
    path("rollouts/<int:batch_id>/compare/<str:task_id>/", views.trajectory_compare, name="trajectory-compare"),
    path("trajectories/<int:trajectory_id>/", views.trajectory_detail, name="trajectory-detail"),
    path("campaigns/", views_campaigns.campaign_list, name="campaign-list"),
    path("campaigns/<int:campaign_id>/", views_campaigns.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:campaign_id>/episodes/", views_campaigns.campaign_episodes, name="campaign-episodes"),
    path("campaigns/<int:campaign_id>/episodes/<int:episode_id>/", views_campaigns.campaign_episode_detail,
         name="campaign-episode-detail"),
    path("campaigns/<int:campaign_id>/episodes/<int:episode_id>.json", views_campaigns.campaign_episode_record,
         name="campaign-episode-record"),
    path("campaigns/<int:campaign_id>/report.<str:fmt>", views_campaigns.campaign_report_export,
         name="campaign-report-export"),
    path("training/", views_training.training_run_list, name="training-run-list"),
    path("training/<int:run_id>/", views_training.training_run_detail, name="training-run-detail"),
    path("training/<int:run_id>/metrics.json", views_training.training_run_metrics, name="training-run-metrics"),
    path("training/<int:run_id>/steps/<int:step>/trajectories.jsonl", views_training.training_step_trajectories,
         name="training-step-trajectories"),
    path("latency/", views_latency.latency_list, name="latency-list"),
    path("latency/<int:study_id>/", views_latency.latency_detail, name="latency-detail"),
    path("latency/<int:study_id>/study.json", views_latency.latency_result_export, name="latency-result-export"),
]
urlpatterns += audit_urls.urlpatterns
