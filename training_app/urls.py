"""Page URLs of the training side, feature by feature (each feature's views in <feature>/views.py)."""

from django.urls import path

from training_app.adaptive import views as adaptive_views
from training_app.audits import views as audits_views
from training_app.campaigns import views as campaigns_views
from training_app.latency import views as latency_views
from training_app.rollouts import views as rollouts_views
from training_app.runs import views as runs_views

urlpatterns = [
    # rollout batches and trajectories
    path("rollouts/", rollouts_views.rollout_batch_list, name="rollout-batch-list"),
    path("rollouts/<int:batch_id>/", rollouts_views.rollout_batch_detail, name="rollout-batch-detail"),
    path("rollouts/<int:batch_id>/trajectories.jsonl", rollouts_views.rollout_batch_export,
         name="rollout-batch-export"),
    path("rollouts/<int:batch_id>/compare/<str:task_id>/", rollouts_views.trajectory_compare,
         name="trajectory-compare"),
    path("trajectories/<int:trajectory_id>/", rollouts_views.trajectory_detail, name="trajectory-detail"),
    # evaluation campaigns
    path("campaigns/", campaigns_views.campaign_list, name="campaign-list"),
    path("campaigns/compare/", campaigns_views.campaign_compare, name="campaign-compare"),
    path("campaigns/<int:campaign_id>/", campaigns_views.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:campaign_id>/episodes/", campaigns_views.campaign_episodes, name="campaign-episodes"),
    path("campaigns/<int:campaign_id>/episodes/<int:episode_id>/", campaigns_views.campaign_episode_detail,
         name="campaign-episode-detail"),
    path("campaigns/<int:campaign_id>/episodes/<int:episode_id>.json", campaigns_views.campaign_episode_record,
         name="campaign-episode-record"),
    path("campaigns/<int:campaign_id>/report.<str:fmt>", campaigns_views.campaign_report_export,
         name="campaign-report-export"),
    # training runs
    path("training/", runs_views.training_run_list, name="training-run-list"),
    path("training/compare/", runs_views.training_run_compare, name="training-run-compare"),
    path("training/<int:run_id>/", runs_views.training_run_detail, name="training-run-detail"),
    path("training/<int:run_id>/successors/<str:task_id>/decide/", adaptive_views.successor_decide,
         name="training-successor-decide"),
    path("training/<int:run_id>/frontier-set/", adaptive_views.frontier_save, name="training-frontier-save"),
    path("training/<int:run_id>/metrics.json", runs_views.training_run_metrics, name="training-run-metrics"),
    path("training/<int:run_id>/steps/<int:step>/trajectories.jsonl", runs_views.training_step_trajectories,
         name="training-step-trajectories"),
    path("training/<int:run_id>/logs/<slug:tracker>.tar.gz", runs_views.training_run_logs, name="training-run-logs"),
    path("training/<int:run_id>/steps/<int:step>/", runs_views.training_step_groups, name="training-step-groups"),
    path("training/<int:run_id>/steps/<int:step>/samples/<int:line>/", runs_views.training_step_sample,
         name="training-step-sample"),
    # latency studies
    path("latency/", latency_views.latency_list, name="latency-list"),
    path("latency/<int:study_id>/", latency_views.latency_detail, name="latency-detail"),
    path("latency/<int:study_id>/study.json", latency_views.latency_result_export, name="latency-result-export"),
    # task-set audits
    path("audits/", audits_views.audit_list, name="audit-list"),
    path("audits/<int:audit_id>/", audits_views.audit_detail, name="audit-detail"),
    path("audits/<int:audit_id>/evidence/<int:verdict_id>.json", audits_views.audit_evidence, name="audit-evidence"),
]
