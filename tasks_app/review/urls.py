"""REST API URLs of the review workflow (under /api/, beside the task side's)."""

from django.urls import path

from tasks_app.review import api as api_review

urlpatterns = [
    path("review/queue/", api_review.ReviewQueueApi.as_view(), name="api-review-queue"),
    path("review/bulk/", api_review.ReviewBulkApi.as_view(), name="api-review-bulk"),
    path("review/saved-views/", api_review.SavedViewListApi.as_view(), name="api-review-saved-views"),
    path("review/saved-views/<int:view_id>/", api_review.SavedViewDetailApi.as_view(),
         name="api-review-saved-view"),
    path("tasks/<str:task_id>/reviews/", api_review.TaskReviewsApi.as_view(), name="api-task-reviews"),
    path("tasks/<str:task_id>/reopen/", api_review.TaskReopenApi.as_view(), name="api-task-reopen"),
    path("tasks/<str:task_id>/assignment/", api_review.TaskAssignmentApi.as_view(), name="api-task-assignment"),
    path("tasks/<str:task_id>/audit/", api_review.TaskAuditApi.as_view(), name="api-task-audit"),
    path("tasks/<str:task_id>/threads/", api_review.TaskThreadsApi.as_view(), name="api-task-threads"),
    path("comments/<int:comment_id>/resolve/", api_review.CommentResolveApi.as_view(), name="api-comment-resolve"),
]
