"""REST API URLs of the training side, feature by feature (each feature's API in <feature>/api.py)."""

from django.urls import path

from training_app.adaptive import api as adaptive_api
from training_app.audits import api as audits_api
from training_app.campaigns import api as campaigns_api
from training_app.latency import api as latency_api
from training_app.rollouts import api as rollouts_api
from training_app.runs import api as runs_api

urlpatterns = [
    # rollout batches and trajectories
    path("rollout-batches/", rollouts_api.RolloutBatchListApi.as_view(), name="api-rollout-batch-list"),
    path("rollout-batches/<int:batch_id>/", rollouts_api.RolloutBatchDetailApi.as_view(),
         name="api-rollout-batch-detail"),
    path("rollout-batches/<int:batch_id>/cancel/", rollouts_api.RolloutBatchCancelApi.as_view(),
         name="api-rollout-batch-cancel"),
    path("rollout-batches/<int:batch_id>/trajectories/", rollouts_api.BatchTrajectoryListApi.as_view(),
         name="api-trajectory-list"),
    path("trajectories/", rollouts_api.TrajectoryListApi.as_view(), name="api-trajectories"),
    path("trajectories/<int:trajectory_id>/", rollouts_api.TrajectoryDetailApi.as_view(), name="api-trajectory-detail"),
    # evaluation campaigns
    path("campaigns/", campaigns_api.CampaignListApi.as_view(), name="api-campaign-list"),
    path("campaigns/<int:campaign_id>/", campaigns_api.CampaignDetailApi.as_view(), name="api-campaign-detail"),
    path("campaigns/<int:campaign_id>/cancel/", campaigns_api.CampaignCancelApi.as_view(), name="api-campaign-cancel"),
    path("campaigns/<int:campaign_id>/report/", campaigns_api.CampaignReportApi.as_view(), name="api-campaign-report"),
    # training runs
    path("training-runs/", runs_api.TrainingRunListApi.as_view(), name="api-training-run-list"),
    path("training-runs/<int:run_id>/", runs_api.TrainingRunDetailApi.as_view(), name="api-training-run-detail"),
    path("training-runs/<int:run_id>/cancel/", runs_api.TrainingRunCancelApi.as_view(), name="api-training-run-cancel"),
    path("training-runs/<int:run_id>/environments/", adaptive_api.TrainingRunEnvironmentsApi.as_view(),
         name="api-training-run-environments"),
    path("training-runs/<int:run_id>/successors/<str:task_id>/decision/", adaptive_api.SuccessorDecisionApi.as_view(),
         name="api-training-run-successor-decision"),
    path("training-runs/<int:run_id>/frontier-set/", adaptive_api.FrontierSetApi.as_view(),
         name="api-training-run-frontier-set"),
    path("training-runs/<int:run_id>/metrics/", runs_api.TrainingRunMetricsApi.as_view(),
         name="api-training-run-metrics"),
    # latency studies
    path("latency-studies/", latency_api.LatencyStudyListApi.as_view(), name="api-latency-study-list"),
    path("latency-studies/<int:study_id>/", latency_api.LatencyStudyDetailApi.as_view(),
         name="api-latency-study-detail"),
    path("latency-studies/<int:study_id>/cancel/", latency_api.LatencyStudyCancelApi.as_view(),
         name="api-latency-study-cancel"),
    # task-set audits
    path("audits/", audits_api.AuditListApi.as_view(), name="api-audit-list"),
    path("audits/<int:audit_id>/", audits_api.AuditDetailApi.as_view(), name="api-audit-detail"),
    path("audits/<int:audit_id>/cancel/", audits_api.AuditCancelApi.as_view(), name="api-audit-cancel"),
]
