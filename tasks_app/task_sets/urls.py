"""Page and API routes of task sets."""

from django.urls import path

from tasks_app.task_sets import api, views

urlpatterns = [
    path("task-sets/", views.task_set_list, name="task-set-list"),
]

api_urlpatterns = [
    path("task-sets/", api.TaskSetListApi.as_view(), name="api-task-set-list"),
    path("task-sets/<str:name>/", api.TaskSetDetailApi.as_view(), name="api-task-set-detail"),
]
