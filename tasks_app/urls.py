"""Page URLs of the task side."""

from django.urls import path

from tasks_app import views

urlpatterns = [
    path("seeds/", views.seed_list, name="seed-list"),
    path("seeds/<slug:name>/", views.seed_detail, name="seed-detail"),
    path("synthesis/", views.synthesis_run_list, name="synthesis-run-list"),
    path("synthesis/<int:run_id>/", views.synthesis_run_detail, name="synthesis-run-detail"),
    path("tasks/", views.task_list, name="task-list"),
    path("tasks/<str:task_id>/", views.task_detail, name="task-detail"),
    path("tasks/<str:task_id>/images/<str:name>", views.task_image, name="task-image"),
    path("tasks/<str:task_id>/regenerate/", views.task_regenerate, name="task-regenerate"),
    path("review/", views.review_queue, name="review-queue"),
    path("task-sets/", views.task_set_list, name="task-set-list"),
]
