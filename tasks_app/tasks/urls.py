"""Page and API routes of tasks."""

from django.urls import path

from tasks_app.tasks import api, views

urlpatterns = [
    path("tasks/", views.task_list, name="task-list"),
    path("tasks/<str:task_id>/", views.task_detail, name="task-detail"),
    path("tasks/<str:task_id>/images/<str:name>", views.task_image, name="task-image"),
    path("tasks/<str:task_id>/regenerate/", views.task_regenerate, name="task-regenerate"),
]

api_urlpatterns = [
    path("tasks/", api.TaskListApi.as_view(), name="api-task-list"),
    path("tasks/<str:task_id>/", api.TaskDetailApi.as_view(), name="api-task-detail"),
    path("tasks/<str:task_id>/dna/", api.TaskDnaApi.as_view(), name="api-task-dna"),
    path("tasks/<str:task_id>/regenerate/", api.TaskRegenerateApi.as_view(), name="api-task-regenerate"),
    path("tasks/<str:task_id>/files/", api.TaskFileListApi.as_view(), name="api-task-files"),
    path("tasks/<str:task_id>/files/<path:path>", api.TaskFileDownloadApi.as_view(), name="api-task-file"),
]
