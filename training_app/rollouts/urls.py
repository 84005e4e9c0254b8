"""Page and API routes of rollout batches and trajectories."""

from django.urls import path

from training_app.rollouts import api, views

urlpatterns = [
    path("rollouts/", views.rollout_batch_list, name="rollout-batch-list"),
    path("rollouts/<int:batch_id>/", views.rollout_batch_detail, name="rollout-batch-detail"),
    path("rollouts/<int:batch_id>/trajectories.jsonl", views.rollout_batch_export, name="rollout-batch-export"),
    path("rollouts/<int:batch_id>/compare/<str:task_id>/", views.trajectory_compare, name="trajectory-compare"),
    path("trajectories/<int:trajectory_id>/", views.trajectory_detail, name="trajectory-detail"),
]

api_urlpatterns = [
    path("rollout-batches/", api.RolloutBatchListApi.as_view(), name="api-rollout-batch-list"),
    path("rollout-batches/<int:batch_id>/", api.RolloutBatchDetailApi.as_view(), name="api-rollout-batch-detail"),
    path("rollout-batches/<int:batch_id>/cancel/", api.RolloutBatchCancelApi.as_view(), name="api-rollout-batch-cancel"),
    path("rollout-batches/<int:batch_id>/trajectories/", api.BatchTrajectoryListApi.as_view(),
         name="api-trajectory-list"),
    path("trajectories/", api.TrajectoryListApi.as_view(), name="api-trajectories"),
    path("trajectories/<int:trajectory_id>/", api.TrajectoryDetailApi.as_view(), name="api-trajectory-detail"),
]
