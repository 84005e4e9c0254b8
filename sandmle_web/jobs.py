"""The shared job row: a state machine with progress, a heartbeat, an error, and a compare-and-set claim.

Every rollout batch, synthesis run, training run and evaluation campaign is a row of a model that inherits
`Job`. Celery tasks claim the row with a conditional update, so a redelivered message does no harm. A running row
whose heartbeat is older than JOB_HEARTBEAT_TIMEOUT_S lost its worker: it can be claimed again (up to
JOB_MAX_ATTEMPTS claims in all) and its work resumes from the results already written by id.
"""

from __future__ import annotations

import errno
import logging
import threading
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, models
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

log = logging.getLogger(__name__)

# The worker name each job this process claimed is held under, by (model label, id): heartbeats and the final
# state are written only while the row still names this holder, so a worker that was taken for dead and comes
# back (a long pause, a partition) stops instead of writing over its successor.
_held: dict[tuple[str, int], str] = {}


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
    # Claims so far: 1 after the first, one more each time a lost worker's row is taken up again.
    attempts = models.PositiveIntegerField(default=0)
    # When the sweep last sent this queued row's message again (its first one was lost, or the broker was down).
    enqueued_at = models.DateTimeField(null=True, blank=True)

    # The Celery tasks that run a row of this model: the first unless `task_name` picks another for a row.
    task_names: tuple[str, ...] = ()

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    def task_name(self) -> str:
        return self.task_names[0]

    def queue_name(self) -> str:
        return getattr(self, "queue", "default")

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
    def _key(cls, job_id: int) -> tuple[str, int]:
        return (cls._meta.label, int(job_id))

    @classmethod
    def _mine(cls, job_id: int):
        """The row, narrowed to this process's claim when it holds one."""
        rows = cls.objects.filter(id=job_id)
        holder = _held.get(cls._key(job_id))
        return rows.filter(worker=holder) if holder is not None else rows

    @classmethod
    def claim(cls, job_id: int, *, worker: str = "") -> bool:
        """Move a queued row to running, or take over a running row whose heartbeat stopped (its worker died) while
        claims remain; False when another live worker has it (or it was cancelled, or it is finished)."""
        now = timezone.now()
        stale = now - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S)
        claimable = Q(state=JobState.QUEUED) | Q(
            state=JobState.RUNNING, heartbeat_at__lt=stale, attempts__lt=settings.JOB_MAX_ATTEMPTS
        )
        claimed = cls.objects.filter(claimable, id=job_id, cancel_requested=False).update(
            state=JobState.RUNNING, started_at=Coalesce(F("started_at"), Value(now)), heartbeat_at=now,
            worker=worker[:200], attempts=F("attempts") + 1,
        )
        if claimed == 1:
            _held[cls._key(job_id)] = worker[:200]
        return claimed == 1

    @classmethod
    def beat(cls, job_id: int, *, progress: float | None = None, message: str | None = None) -> bool:
        """Record a heartbeat (and progress); returns False when cancellation was requested, or when this process's
        claim was taken over by another worker (then the caller must stop as for a cancellation)."""
        fields: dict = {"heartbeat_at": timezone.now()}
        if progress is not None:
            fields["progress"] = max(0.0, min(1.0, float(progress)))
        if message is not None:
            fields["progress_message"] = message[:300]
        updated = cls._mine(job_id).filter(state=JobState.RUNNING).update(**fields)
        if updated == 0 and cls._key(job_id) in _held:
            return False
        return not cls.objects.filter(id=job_id, cancel_requested=True).exists()

    @classmethod
    def finish(cls, job_id: int, *, state: str, error: str = "") -> bool:
        """Close a running row; a row already finished (say, cancelled meanwhile) or taken over keeps its state."""
        assert state in FINISHED_STATES, state
        fields: dict = {"state": state, "finished_at": timezone.now(), "error": error[:20000]}
        if state == JobState.SUCCEEDED:
            fields["progress"] = 1.0
        closed = cls._mine(job_id).filter(state=JobState.RUNNING).update(**fields) == 1
        _held.pop(cls._key(job_id), None)
        return closed

    @classmethod
    @contextmanager
    def heartbeat(cls, job_id: int):
        """Beat every JOB_HEARTBEAT_INTERVAL_S from a thread while the block runs, whatever the job is doing.

        Progress beats come only between units of work (a synthesized task, an episode, a step), and one unit can
        outlast the timeout on a busy machine: without this a live job would look lost and be claimed twice.
        """
        stop = threading.Event()

        def keep_alive() -> None:
            try:
                while not stop.wait(settings.JOB_HEARTBEAT_INTERVAL_S):
                    holder = _held.get(cls._key(job_id))
                    if holder is None:
                        continue
                    try:
                        cls.objects.filter(id=job_id, state=JobState.RUNNING, worker=holder).update(
                            heartbeat_at=timezone.now())
                    except DatabaseError as error:  # a busy database: the next beat tries again
                        log.warning("heartbeat of %s %s failed: %s", cls.__name__, job_id, error)
            finally:
                connection.close()  # this thread's own connection

        beater = threading.Thread(target=keep_alive, name=f"heartbeat-{cls.__name__}-{job_id}", daemon=True)
        beater.start()
        try:
            yield
        finally:
            stop.set()
            beater.join()
            _held.pop(cls._key(job_id), None)

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
    def sweep_stale(cls) -> tuple[list[int], int]:
        """Rows whose worker died: queued again while claims remain, failed with the reason once they run out.

        Returns the ids put back in the queue (the caller sends their messages) and the number failed. Each row
        moves by a conditional update on the heartbeat it was seen with, so a worker that beats meanwhile keeps it.
        """
        now = timezone.now()
        cutoff = now - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S)
        requeued, failed = [], 0
        for row in cls.objects.filter(state=JobState.RUNNING, heartbeat_at__lt=cutoff).only("id", "attempts",
                                                                                           "heartbeat_at"):
            seen = cls.objects.filter(id=row.id, state=JobState.RUNNING, heartbeat_at=row.heartbeat_at)
            last = row.heartbeat_at.strftime("%Y-%m-%d %H:%M:%S UTC")
            if row.attempts < settings.JOB_MAX_ATTEMPTS:
                message = (f"worker lost (last heartbeat at {last}); queued again for attempt {row.attempts + 1} "
                           f"of {settings.JOB_MAX_ATTEMPTS}")
                if seen.update(state=JobState.QUEUED, progress_message=message, enqueued_at=now):
                    requeued.append(row.id)
            else:
                times = "once" if row.attempts == 1 else f"{row.attempts} times"
                failed += seen.update(state=JobState.FAILED, finished_at=now,
                                      error=f"worker lost {times}; last heartbeat at {last}")
        return requeued, failed

    @classmethod
    def unsent(cls) -> list[int]:
        """Queued rows no worker took within the heartbeat timeout of their last message (the message was lost:
        a broker restarted without persistence, or was down at launch); marks them sent again now."""
        now = timezone.now()
        cutoff = now - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S)
        ids = []
        waiting = cls.objects.annotate(last_sent=Coalesce("enqueued_at", "created_at")).filter(
            state=JobState.QUEUED, cancel_requested=False, last_sent__lt=cutoff)
        for row in waiting.only("id", "enqueued_at"):
            if cls.objects.filter(id=row.id, state=JobState.QUEUED, enqueued_at=row.enqueued_at).update(
                    enqueued_at=now):
                ids.append(row.id)
        return ids


def job_models() -> list[type[Job]]:
    """Every concrete job model the installed apps define (the lost-job sweep and the broker-down resend walk them)."""
    from django.apps import apps

    return [model for model in apps.get_models() if issubclass(model, Job)]


def mark_unsent(task_name: str, args: tuple) -> int:
    """The broker refused this job's message: date its last send a timeout back, so `unsent` returns the row at the
    sweep's next run (the first the broker answers) rather than one heartbeat timeout later. Returns rows marked."""
    model = next((model for model in job_models() if task_name in model.task_names), None)
    if model is None or not args or not isinstance(args[0], int):
        return 0
    overdue = timezone.now() - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S + 1)
    return model.objects.filter(id=args[0], state=JobState.QUEUED).update(enqueued_at=overdue)


def describe_failure(error: BaseException) -> str:
    """The line a failed job shows: a full data directory is named as such, anything else as its type and text."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        where = f" (writing {error.filename})" if error.filename else ""
        return (f"no space left in the data directory{where}: {error.strerror or errno.errorcode[error.errno]}. "
                f"Free some space and launch the job again; nothing half-written was kept.")
    return f"{type(error).__name__}: {error}"
