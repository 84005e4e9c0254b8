"""Page and API routes of training runs."""

from django.urls import path

from training_app.runs import api, views

urlpatterns = [
    path("training/", views.training_run_list, name="training-run-list"),
    path("training/<int:run_id>/", views.training_run_detail, name="training-run-detail"),
    path("training/<int:run_id>/metrics.json", views.training_run_metrics, name="training-run-metrics"),
    path("training/<int:run_id>/steps/<int:step>/trajectories.jsonl", views.training_step_trajectories,
         name="training-step-trajectories"),
]

api_urlpatterns = [
    path("training-runs/", api.TrainingRunListApi.as_view(), name="api-training-run-list"),
    path("training-runs/<int:run_id>/", api.TrainingRunDetailApi.as_view(), name="api-training-run-detail"),
    path("training-runs/<int:run_id>/cancel/", api.TrainingRunCancelApi.as_view(), name="api-training-run-cancel"),
    path("training-runs/<int:run_id>/metrics/", api.TrainingRunMetricsApi.as_view(), name="api-training-run-metrics"),
]
