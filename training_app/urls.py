"""Page URLs of the training side."""

from django.urls import path

from training_app import views

urlpatterns = [
    path("rollouts/", views.rollout_batch_list, name="rollout-batch-list"),
    path("rollouts/<int:batch_id>/", views.rollout_batch_detail, name="rollout-batch-detail"),
    path("rollouts/<int:batch_id>/trajectories.jsonl", views.rollout_batch_export, name="rollout-batch-export"),
    path("rollouts/<int:batch_id>/compare/<str:task_id>/", views.trajectory_compare, name="trajectory-compare"),
    path("trajectories/<int:trajectory_id>/", views.trajectory_detail, name="trajectory-detail"),
]
