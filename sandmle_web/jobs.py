"""The shared job row: a state machine with progress, a heartbeat, an error, and a compare-and-set claim.

Every rollout batch, synthesis run, training run and evaluation campaign is a row of a model that inherits
`Job`. Celery tasks claim the row with a conditional update, so a redelivered message does no harm.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


class JobState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED_STATES = (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED)


class Job(models.Model):
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0)  # 0..1
    progress_message = models.CharField(max_length=300, blank=True, default="")
    error = models.TextField(blank=True, default="")
    cancel_requested = models.BooleanField(default=False)
    cancel_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    @property
    def is_finished(self) -> bool:
        return self.state in FINISHED_STATES

    @property
    def duration_s(self) -> float | None:
        if not self.started_at:
            return None
        end = self.finished_at or timezone.now()
        return (end - self.started_at).total_seconds()

    @classmethod
    def claim(cls, job_id: int, *, worker: str = "") -> bool:
        """Move a queued row to running; False when another worker already has it (or it was cancelled)."""
        now = timezone.now()
        claimed = cls.objects.filter(id=job_id, state=JobState.QUEUED, cancel_requested=False).update(
            state=JobState.RUNNING, started_at=now, heartbeat_at=now, worker=worker[:200]
        )
        return claimed == 1

    @classmethod
    def beat(cls, job_id: int, *, progress: float | None = None, message: str | None = None) -> bool:
        """Record a heartbeat (and progress); returns False when cancellation was requested."""
        fields: dict = {"heartbeat_at": timezone.now()}
        if progress is not None:
            fields["progress"] = max(0.0, min(1.0, float(progress)))
        if message is not None:
            fields["progress_message"] = message[:300]
        cls.objects.filter(id=job_id, state=JobState.RUNNING).update(**fields)
        return not cls.objects.filter(id=job_id, cancel_requested=True).exists()

    @classmethod
    def finish(cls, job_id: int, *, state: str, error: str = "") -> bool:
        """Close a running row; a row already finished (say, cancelled meanwhile) keeps its state."""
        assert state in FINISHED_STATES, state
        fields: dict = {"state": state, "finished_at": timezone.now(), "error": error[:20000]}
        if state == JobState.SUCCEEDED:
            fields["progress"] = 1.0
        return cls.objects.filter(id=job_id, state=JobState.RUNNING).update(**fields) == 1

    def may_be_cancelled_by(self, user) -> bool:
        """A job is stopped by whoever started it, or by a reviewer or admin; not by any other curator."""
        from accounts.roles import Role, has_role

        return has_role(user, Role.REVIEWER) or (has_role(user, Role.CURATOR) and self.created_by_id == user.id)

    @classmethod
    def request_cancel(cls, job_id: int, *, actor=None) -> None:
        """Queued rows are cancelled at once; running ones stop at their next heartbeat. The first request's actor
        and time are kept, so the job page says who stopped it."""
        unfinished = cls.objects.filter(id=job_id).exclude(state__in=FINISHED_STATES)
        unfinished.filter(cancel_requested=False).update(
            cancel_requested=True, cancel_requested_by=actor, cancel_requested_at=timezone.now()
        )
        cls.objects.filter(id=job_id, state=JobState.QUEUED).update(
            state=JobState.CANCELLED, finished_at=timezone.now()
        )

    @classmethod
    def fail_stale(cls) -> int:
        """Fail running rows whose heartbeat stopped: a killed worker loses its message, the row notices."""
        cutoff = timezone.now() - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S)
        return cls.objects.filter(state=JobState.RUNNING, heartbeat_at__lt=cutoff).update(
            state=JobState.FAILED, finished_at=timezone.now(), error="worker lost: no heartbeat"
        )
