"""REST API URLs of task-set archives."""

from django.urls import path

from tasks_app.task_archives import api

urlpatterns = [
    path("task-sets/<str:name>/exports/", api.TaskSetExportListApi.as_view(), name="api-task-set-exports"),
    path("task-set-exports/<int:export_id>/", api.TaskSetExportDetailApi.as_view(), name="api-task-set-export-detail"),
    path("task-set-exports/<int:export_id>/archive/", api.TaskSetExportArchiveApi.as_view(),
         name="api-task-set-export-archive"),
    path("task-archive-imports/", api.TaskArchiveImportListApi.as_view(), name="api-task-archive-import-list"),
    path("task-archive-imports/<int:import_id>/", api.TaskArchiveImportDetailApi.as_view(),
         name="api-task-archive-import-detail"),
]
