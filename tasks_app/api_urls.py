"""REST API URLs of the task side."""

from django.urls import path

from tasks_app.seeds import api as seed_api
from tasks_app.synthesis import api as synthesis_api
from tasks_app.task_sets import api as task_set_api
from tasks_app.tasks import api as task_api

urlpatterns = [
    path("seeds/", seed_api.SeedListApi.as_view(), name="api-seed-list"),
    # <str:>, not <slug:>: a name with other characters reaches the view and gets its JSON 404, not an HTML page.
    path("seeds/<str:name>/", seed_api.SeedDetailApi.as_view(), name="api-seed-detail"),
    path("seeds/<str:name>/dna/", seed_api.SeedDnaApi.as_view(), name="api-seed-dna"),
    path("synthesis-runs/", synthesis_api.SynthesisRunListApi.as_view(), name="api-synthesis-run-list"),
    path("synthesis-runs/<int:run_id>/", synthesis_api.SynthesisRunDetailApi.as_view(), name="api-synthesis-run-detail"),
    path("synthesis-runs/<int:run_id>/cancel/", synthesis_api.SynthesisRunCancelApi.as_view(), name="api-synthesis-run-cancel"),
    path("tasks/", task_api.TaskListApi.as_view(), name="api-task-list"),
    path("tasks/<str:task_id>/", task_api.TaskDetailApi.as_view(), name="api-task-detail"),
    path("tasks/<str:task_id>/dna/", task_api.TaskDnaApi.as_view(), name="api-task-dna"),
    path("tasks/<str:task_id>/regenerate/", task_api.TaskRegenerateApi.as_view(), name="api-task-regenerate"),
    path("tasks/<str:task_id>/files/", task_api.TaskFileListApi.as_view(), name="api-task-files"),
    path("tasks/<str:task_id>/files/<path:path>", task_api.TaskFileDownloadApi.as_view(), name="api-task-file"),
    path("task-sets/", task_set_api.TaskSetListApi.as_view(), name="api-task-set-list"),
    path("task-sets/<str:name>/", task_set_api.TaskSetDetailApi.as_view(), name="api-task-set-detail"),
]

# The review workflow's routes live beside their views (tasks_app.api_review_urls): decisions (approve, reject,
# request changes) are POST tasks/<id>/reviews/, comments POST tasks/<id>/threads/.
from tasks_app.review.urls import urlpatterns as review_urlpatterns

urlpatterns += review_urlpatterns
