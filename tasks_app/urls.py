"""Page URLs of the task side."""

from django.urls import path

from tasks_app import views, views_review

urlpatterns = [
    path("seeds/", views.seed_list, name="seed-list"),
    path("seeds/<slug:name>/", views.seed_detail, name="seed-detail"),
    path("synthesis/", views.synthesis_run_list, name="synthesis-run-list"),
    path("synthesis/<int:run_id>/", views.synthesis_run_detail, name="synthesis-run-detail"),
    path("tasks/", views.task_list, name="task-list"),
    path("tasks/<str:task_id>/", views.task_detail, name="task-detail"),
    path("tasks/<str:task_id>/images/<str:name>", views.task_image, name="task-image"),
    path("tasks/<str:task_id>/regenerate/", views.task_regenerate, name="task-regenerate"),
    path("review/", views_review.review_queue, name="review-queue"),
    path("review/saved-views/", views_review.review_saved_view_save, name="review-saved-view-save"),
    path("review/saved-views/<int:view_id>/delete/", views_review.review_saved_view_delete,
         name="review-saved-view-delete"),
    path("tasks/<str:task_id>/review/<slug:action>/", views_review.task_review_action, name="task-review-action"),
    path("comments/<int:comment_id>/resolve/", views_review.comment_resolve, name="comment-resolve"),
    path("trajectories/<int:trajectory_id>/turns/<int:turn>/comments/", views_review.trajectory_turn_comment,
         name="trajectory-turn-comment"),
    path("task-sets/", views.task_set_list, name="task-set-list"),
]
