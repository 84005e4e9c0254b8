"""REST API URLs of the rollout side."""

from django.urls import path

from training_app.campaigns import api as api_campaigns
from training_app.latency import api as api_latency
from training_app.rollouts import api
from training_app.runs import api as api_training

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
