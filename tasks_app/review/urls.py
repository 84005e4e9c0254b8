"""Page and API routes of the review workflow: decisions (approve, reject, request changes) are POST
tasks/<id>/reviews/, comments POST tasks/<id>/threads/."""

from django.urls import path

from tasks_app.review import api, views

urlpatterns = [
    path("review/", views.review_queue, name="review-queue"),
    path("review/saved-views/", views.review_saved_view_save, name="review-saved-view-save"),
    path("review/saved-views/<int:view_id>/delete/", views.review_saved_view_delete,
         name="review-saved-view-delete"),
    path("tasks/<str:task_id>/review/<slug:action>/", views.task_review_action, name="task-review-action"),
    path("comments/<int:comment_id>/resolve/", views.comment_resolve, name="comment-resolve"),
    path("trajectories/<int:trajectory_id>/turns/<int:turn>/comments/", views.trajectory_turn_comment,
         name="trajectory-turn-comment"),
]

api_urlpatterns = [
    path("review/queue/", api.ReviewQueueApi.as_view(), name="api-review-queue"),
    path("review/bulk/", api.ReviewBulkApi.as_view(), name="api-review-bulk"),
    path("review/saved-views/", api.SavedViewListApi.as_view(), name="api-review-saved-views"),
    path("review/saved-views/<int:view_id>/", api.SavedViewDetailApi.as_view(),
         name="api-review-saved-view"),
    path("tasks/<str:task_id>/reviews/", api.TaskReviewsApi.as_view(), name="api-task-reviews"),
    path("tasks/<str:task_id>/reopen/", api.TaskReopenApi.as_view(), name="api-task-reopen"),
    path("tasks/<str:task_id>/assignment/", api.TaskAssignmentApi.as_view(), name="api-task-assignment"),
    path("tasks/<str:task_id>/audit/", api.TaskAuditApi.as_view(), name="api-task-audit"),
    path("tasks/<str:task_id>/threads/", api.TaskThreadsApi.as_view(), name="api-task-threads"),
    path("comments/<int:comment_id>/resolve/", api.CommentResolveApi.as_view(), name="api-comment-resolve"),
]
