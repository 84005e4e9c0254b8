"""Page URLs of the task side, feature by feature (each feature's views in <feature>/views.py)."""

from django.urls import path

from tasks_app.frontier import views as frontier_views
from tasks_app.review import views as review_views
from tasks_app.seeds import views as seeds_views
from tasks_app.synthesis import views as synthesis_views
from tasks_app.task_archives import views as task_archives_views
from tasks_app.task_sets import views as task_sets_views
from tasks_app.tasks import views as tasks_views

urlpatterns = [
    # seeds
    path("seeds/", seeds_views.seed_list, name="seed-list"),
    path("seeds/<slug:name>/", seeds_views.seed_detail, name="seed-detail"),
    # synthesis runs
    path("synthesis/", synthesis_views.synthesis_run_list, name="synthesis-run-list"),
    path("synthesis/<int:run_id>/", synthesis_views.synthesis_run_detail, name="synthesis-run-detail"),
    # tasks
    path("tasks/", tasks_views.task_list, name="task-list"),
    path("tasks/<str:task_id>/", tasks_views.task_detail, name="task-detail"),
    path("tasks/<str:task_id>/images/<str:name>", tasks_views.task_image, name="task-image"),
    path("tasks/<str:task_id>/regenerate/", tasks_views.task_regenerate, name="task-regenerate"),
    # the review workflow
    path("review/", review_views.review_queue, name="review-queue"),
    path("review/saved-views/", review_views.review_saved_view_save, name="review-saved-view-save"),
    path("review/saved-views/<int:view_id>/delete/", review_views.review_saved_view_delete,
         name="review-saved-view-delete"),
    path("tasks/<str:task_id>/review/<slug:action>/", review_views.task_review_action, name="task-review-action"),
    path("comments/<int:comment_id>/resolve/", review_views.comment_resolve, name="comment-resolve"),
    path("trajectories/<int:trajectory_id>/turns/<int:turn>/comments/", review_views.trajectory_turn_comment,
         name="trajectory-turn-comment"),
    # task sets
    path("task-sets/", task_sets_views.task_set_list, name="task-set-list"),
    path("task-sets/<str:name>/", task_sets_views.task_set_detail, name="task-set-detail"),
    path("task-sets/<str:name>/edit/", task_sets_views.task_set_edit, name="task-set-edit"),
    path("task-sets/<str:name>/clone/", task_sets_views.task_set_clone, name="task-set-clone"),
    path("task-sets/<str:name>/retire/", task_sets_views.task_set_retire, name="task-set-retire"),
    path("task-sets/<str:name>/restore/", task_sets_views.task_set_restore, name="task-set-restore"),
    # frontier runs: a set re-levelled for a policy
    path("task-sets/<str:name>/frontier/", frontier_views.frontier_launch, name="frontier-launch"),
    path("frontier-runs/<int:run_id>/", frontier_views.frontier_run_detail, name="frontier-run-detail"),
    # task-set archives: downloads (reviewers and above: the answers travel) and uploads
    path("task-sets/<slug:name>/export/", task_archives_views.task_set_export, name="task-set-export"),
    path("task-set-exports/<int:export_id>/", task_archives_views.task_set_export_detail,
         name="task-set-export-detail"),
    path("task-set-exports/<int:export_id>/archive.tar.gz", task_archives_views.task_set_export_download,
         name="task-set-export-download"),
    path("task-archives/import/", task_archives_views.task_archive_import_list, name="task-archive-import-list"),
    path("task-archives/import/<int:import_id>/", task_archives_views.task_archive_import_detail,
         name="task-archive-import-detail"),
]
