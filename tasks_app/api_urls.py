"""REST API URLs of the task side."""

from django.urls import path

from tasks_app import api

urlpatterns = [
    path("seeds/", api.SeedListApi.as_view(), name="api-seed-list"),
    # <str:>, not <slug:>: a name with other characters reaches the view and gets its JSON 404, not an HTML page.
    path("seeds/<str:name>/", api.SeedDetailApi.as_view(), name="api-seed-detail"),
    path("seeds/<str:name>/dna/", api.SeedDnaApi.as_view(), name="api-seed-dna"),
    path("synthesis-runs/", api.SynthesisRunListApi.as_view(), name="api-synthesis-run-list"),
    path("synthesis-runs/<int:run_id>/", api.SynthesisRunDetailApi.as_view(), name="api-synthesis-run-detail"),
    path("synthesis-runs/<int:run_id>/cancel/", api.SynthesisRunCancelApi.as_view(), name="api-synthesis-run-cancel"),
    path("tasks/", api.TaskListApi.as_view(), name="api-task-list"),
    path("tasks/<str:task_id>/", api.TaskDetailApi.as_view(), name="api-task-detail"),
    path("tasks/<str:task_id>/dna/", api.TaskDnaApi.as_view(), name="api-task-dna"),
    path("tasks/<str:task_id>/regenerate/", api.TaskRegenerateApi.as_view(), name="api-task-regenerate"),
    path("tasks/<str:task_id>/files/", api.TaskFileListApi.as_view(), name="api-task-files"),
    path("tasks/<str:task_id>/files/<path:path>", api.TaskFileDownloadApi.as_view(), name="api-task-file"),
    path("task-sets/", api.TaskSetListApi.as_view(), name="api-task-set-list"),
    path("task-sets/<str:name>/", api.TaskSetDetailApi.as_view(), name="api-task-set-detail"),
]

# The review workflow's routes live beside their views (tasks_app.api_review_urls): decisions (approve, reject,
# request changes) are POST tasks/<id>/reviews/, comments POST tasks/<id>/threads/.
from tasks_app.api_review_urls import urlpatterns as review_urlpatterns  # noqa: E402

urlpatterns += review_urlpatterns
