"""REST API URLs of the rollout side."""

from django.urls import path

from training_app import api, api_campaigns, api_latency, api_training
from training_app.audits import api as audit_api

urlpatterns = [
    path("rollout-batches/", api.RolloutBatchListApi.as_view(), name="api-rollout-batch-list"),
    path("rollout-batches/<int:batch_id>/", api.RolloutBatchDetailApi.as_view(), name="api-rollout-batch-detail"),
    path("rollout-batches/<int:batch_id>/cancel/", api.RolloutBatchCancelApi.as_view(), name="api-rollout-batch-cancel"),
    path("rollout-batches/<int:batch_id>/trajectories/", api.BatchTrajectoryListApi.as_view(),
         name="api-trajectory-list"),
    path("trajectories/", api.TrajectoryListApi.as_view(), name="api-trajectories"),
    path("trajectories/<int:trajectory_id>/", api.TrajectoryDetailApi.as_view(), name="api-trajectory-detail"),
]
urlpatterns += api_campaigns.urlpatterns
urlpatterns += api_training.urlpatterns
urlpatterns += api_latency.urlpatterns
urlpatterns += audit_api.urlpatterns
