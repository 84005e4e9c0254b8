"""Page URLs of the task side."""

from django.urls import path

from tasks_app.review import views as views_review
from tasks_app.seeds import views as seed_views
from tasks_app.synthesis import views as synthesis_views
from tasks_app.task_sets import views as task_set_views
from tasks_app.tasks import views as task_views

urlpatterns = [
    path("seeds/", seed_views.seed_list, name="seed-list"),
    path("seeds/<slug:name>/", seed_views.seed_detail, name="seed-detail"),
    path("synthesis/", synthesis_views.synthesis_run_list, name="synthesis-run-list"),
    path("synthesis/<int:run_id>/", synthesis_views.synthesis_run_detail, name="synthesis-run-detail"),
    path("tasks/", task_views.task_list, name="task-list"),
    path("tasks/<str:task_id>/", task_views.task_detail, name="task-detail"),
    path("tasks/<str:task_id>/images/<str:name>", task_views.task_image, name="task-image"),
    path("tasks/<str:task_id>/regenerate/", task_views.task_regenerate, name="task-regenerate"),
    path("review/", views_review.review_queue, name="review-queue"),
    path("review/saved-views/", views_review.review_saved_view_save, name="review-saved-view-save"),
    path("review/saved-views/<int:view_id>/delete/", views_review.review_saved_view_delete,
         name="review-saved-view-delete"),
    path("tasks/<str:task_id>/review/<slug:action>/", views_review.task_review_action, name="task-review-action"),
    path("comments/<int:comment_id>/resolve/", views_review.comment_resolve, name="comment-resolve"),
    path("trajectories/<int:trajectory_id>/turns/<int:turn>/comments/", views_review.trajectory_turn_comment,
         name="trajectory-turn-comment"),
    path("task-sets/", task_set_views.task_set_list, name="task-set-list"),
]
