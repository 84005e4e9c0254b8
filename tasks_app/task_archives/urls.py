"""Page URLs of task-set archives."""

from django.urls import path

from tasks_app.task_archives import views

urlpatterns = [
    path("task-sets/<slug:name>/export/", views.task_set_export, name="task-set-export"),
    path("task-set-exports/<int:export_id>/", views.task_set_export_detail, name="task-set-export-detail"),
    path("task-set-exports/<int:export_id>/archive.tar.gz", views.task_set_export_download,
         name="task-set-export-download"),
    path("task-archives/import/", views.task_archive_import_list, name="task-archive-import-list"),
    path("task-archives/import/<int:import_id>/", views.task_archive_import_detail, name="task-archive-import-detail"),
]
