"""App config of training_app."""

from django.apps import AppConfig


class TrainingAppConfig(AppConfig):
    name = "training_app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # tasks_app's pages show trajectories and audits without importing this app (tasks_app/shared/training_hooks.py)
        from tasks_app.shared import training_hooks
        from training_app.audits import selectors as audit_selectors
        from training_app.models import Trajectory

        training_hooks.register(
            trajectories=Trajectory.objects.all,
            degenerate_scores=audit_selectors.degenerate_scores,
            last_audit=audit_selectors.last_audit,
            last_audits=audit_selectors.last_audits,
            failing_verdicts=audit_selectors.failing_verdicts,
            stale_lines=audit_selectors.stale_lines,
        )
