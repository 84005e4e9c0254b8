"""REST API URLs of the task side, feature by feature (each feature's API in <feature>/api.py)."""

from django.urls import path

from tasks_app.frontier import api as frontier_api
from tasks_app.review import api as review_api
from tasks_app.seeds import api as seeds_api
from tasks_app.synthesis import api as synthesis_api
from tasks_app.task_archives import api as task_archives_api
from tasks_app.task_sets import api as task_sets_api
from tasks_app.tasks import api as tasks_api

urlpatterns = [
    # seeds
    path("seeds/", seeds_api.SeedListApi.as_view(), name="api-seed-list"),
    # <str:>, not <slug:>: a name with other characters reaches the view and gets its JSON 404, not an HTML page.
    path("seeds/<str:name>/", seeds_api.SeedDetailApi.as_view(), name="api-seed-detail"),
    path("seeds/<str:name>/dna/", seeds_api.SeedDnaApi.as_view(), name="api-seed-dna"),
    # synthesis runs
    path("synthesis-runs/", synthesis_api.SynthesisRunListApi.as_view(), name="api-synthesis-run-list"),
    path("synthesis-runs/<int:run_id>/", synthesis_api.SynthesisRunDetailApi.as_view(),
         name="api-synthesis-run-detail"),
    path("synthesis-runs/<int:run_id>/cancel/", synthesis_api.SynthesisRunCancelApi.as_view(),
         name="api-synthesis-run-cancel"),
    # tasks
    path("tasks/", tasks_api.TaskListApi.as_view(), name="api-task-list"),
    path("tasks/<str:task_id>/", tasks_api.TaskDetailApi.as_view(), name="api-task-detail"),
    path("tasks/<str:task_id>/dna/", tasks_api.TaskDnaApi.as_view(), name="api-task-dna"),
    path("tasks/<str:task_id>/regenerate/", tasks_api.TaskRegenerateApi.as_view(), name="api-task-regenerate"),
    path("tasks/<str:task_id>/files/", tasks_api.TaskFileListApi.as_view(), name="api-task-files"),
    path("tasks/<str:task_id>/files/<path:path>", tasks_api.TaskFileDownloadApi.as_view(), name="api-task-file"),
    # task sets
    path("task-sets/", task_sets_api.TaskSetListApi.as_view(), name="api-task-set-list"),
    path("task-sets/<str:name>/", task_sets_api.TaskSetDetailApi.as_view(), name="api-task-set-detail"),
    path("task-sets/<str:name>/clone/", task_sets_api.TaskSetCloneApi.as_view(), name="api-task-set-clone"),
    path("task-sets/<str:name>/retire/", task_sets_api.TaskSetRetireApi.as_view(), name="api-task-set-retire"),
    path("task-sets/<str:name>/restore/", task_sets_api.TaskSetRestoreApi.as_view(), name="api-task-set-restore"),
    path("task-sets/<str:name>/history/", task_sets_api.TaskSetHistoryApi.as_view(), name="api-task-set-history"),
    # the review workflow: decisions (approve, reject, request changes) are POST tasks/<id>/reviews/,
    # comments POST tasks/<id>/threads/
    path("review/queue/", review_api.ReviewQueueApi.as_view(), name="api-review-queue"),
    path("review/bulk/", review_api.ReviewBulkApi.as_view(), name="api-review-bulk"),
    path("review/saved-views/", review_api.SavedViewListApi.as_view(), name="api-review-saved-views"),
    path("review/saved-views/<int:view_id>/", review_api.SavedViewDetailApi.as_view(),
         name="api-review-saved-view"),
    path("tasks/<str:task_id>/reviews/", review_api.TaskReviewsApi.as_view(), name="api-task-reviews"),
    path("tasks/<str:task_id>/reopen/", review_api.TaskReopenApi.as_view(), name="api-task-reopen"),
    path("tasks/<str:task_id>/retire/", review_api.TaskRetireApi.as_view(), name="api-task-retire"),
    path("tasks/<str:task_id>/assignment/", review_api.TaskAssignmentApi.as_view(), name="api-task-assignment"),
    path("tasks/<str:task_id>/audit/", review_api.TaskAuditApi.as_view(), name="api-task-audit"),
    path("tasks/<str:task_id>/threads/", review_api.TaskThreadsApi.as_view(), name="api-task-threads"),
    path("comments/<int:comment_id>/resolve/", review_api.CommentResolveApi.as_view(), name="api-comment-resolve"),
    # frontier runs: a set re-levelled for a policy
    path("frontier-runs/", frontier_api.FrontierRunListApi.as_view(), name="api-frontier-run-list"),
    path("frontier-runs/<int:run_id>/", frontier_api.FrontierRunDetailApi.as_view(), name="api-frontier-run-detail"),
    path("frontier-runs/<int:run_id>/cancel/", frontier_api.FrontierRunCancelApi.as_view(),
         name="api-frontier-run-cancel"),
    # task-set archives
    path("task-sets/<str:name>/exports/", task_archives_api.TaskSetExportListApi.as_view(),
         name="api-task-set-exports"),
    path("task-set-exports/<int:export_id>/", task_archives_api.TaskSetExportDetailApi.as_view(),
         name="api-task-set-export-detail"),
    path("task-set-exports/<int:export_id>/archive/", task_archives_api.TaskSetExportArchiveApi.as_view(),
         name="api-task-set-export-archive"),
    path("task-archive-imports/", task_archives_api.TaskArchiveImportListApi.as_view(),
         name="api-task-archive-import-list"),
    path("task-archive-imports/<int:import_id>/", task_archives_api.TaskArchiveImportDetailApi.as_view(),
         name="api-task-archive-import-detail"),
]
