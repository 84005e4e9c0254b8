"""Reads across apps for the dashboard and the progress endpoint: every job model, running jobs, recent activity."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.apps import apps
from django.db import models
from django.db.models import Count, QuerySet, Value
from django.utils import timezone
from django.utils.timesince import timesince

from sandmle_web.jobs import FINISHED_STATES, Job, JobState
from sandmle_web.worker_queues import unserved_queues

RECENT_LIMIT = 12


def job_models() -> dict[str, type[Job]]:
    """Every concrete model built on the shared Job row, by label ('tasks_app.synthesisrun').

    Found from the app registry, so training runs and evaluation campaigns join the dashboard and the progress
    endpoint as soon as their models exist, without a list to keep in step.
    """
    return {
        model._meta.label_lower: model
        for model in apps.get_models()
        if issubclass(model, Job) and not model._meta.abstract
    }


def light_jobs(model: type[Job]) -> QuerySet:
    """A job model's rows without their JSON columns (summaries, reports, configs: the heavy part of a job row),
    with the users a job card names, so a dashboard card costs no query of its own."""
    heavy = [field.name for field in model._meta.concrete_fields if isinstance(field, models.JSONField)]
    return model.objects.select_related("created_by", "cancel_requested_by").defer(*heavy)


def job_kind_name(model: type[Job]) -> str:
    return str(model._meta.verbose_name).capitalize()


def job_get(*, label: str, job_id: int) -> Job | None:
    model = job_models().get(label)
    return model.objects.filter(id=job_id).first() if model else None


def job_progress(job: Job) -> dict:
    """What a polling page needs to redraw a job's progress."""
    return {
        "id": job.id,
        "state": job.state,
        "progress": round(job.progress, 4),
        "message": job.progress_message,
        "finished": job.is_finished,
        "cancel_requested": job.cancel_requested,
        "duration_s": round(job.duration_s, 1) if job.duration_s is not None else None,
        "error": job.error[:500],
        "wait": job_wait_note(job),
    }


def job_wait_note(job: Job) -> str:
    """For a queued job: how long it has waited, and whether any worker consumes its queue; "" once it runs."""
    if job.state != JobState.QUEUED:
        return ""
    since = job.enqueued_at or job.created_at
    seconds = (timezone.now() - since).total_seconds()
    # timesince() counts whole minutes ("0 minutes" for a job queued 40 s ago): seconds while under a minute.
    waited = f"{max(0, int(seconds))} s" if seconds < 60 else timesince(since, timezone.now())
    note = f"waiting for {waited} in the {job.queue_name()} queue"
    if job.queue_name() in unserved_queues():
        note += f"; no worker consumes the {job.queue_name()} queue, so it will not start until one does"
    return note


@dataclass
class JobRow:
    label: str
    kind: str
    job: Job
    url: str


def job_detail_url(job: Job) -> str:
    # Each job model may name its own page; `get_absolute_url` is Django's convention for it.
    getter = getattr(job, "get_absolute_url", None)
    if getter:
        return getter()
    from django.urls import NoReverseMatch, reverse

    routes = {"tasks_app.synthesisrun": ("synthesis-run-detail", "run_id"),
              "training_app.rolloutbatch": ("rollout-batch-detail", "batch_id"),
              "training_app.evalcampaign": ("campaign-detail", "campaign_id"),
              "training_app.trainingrun": ("training-run-detail", "run_id")}
    route = routes.get(job._meta.label_lower)
    if route is None:
        return ""
    try:
        return reverse(route[0], kwargs={route[1]: job.id})
    except NoReverseMatch:
        return ""


def active_jobs(*, limit: int = 20) -> list[JobRow]:
    """Queued and running jobs of every kind, newest first (one query per job model, never per row)."""
    rows = []
    for label, model in job_models().items():
        running = light_jobs(model).exclude(state__in=FINISHED_STATES)
        for job in running.order_by("-created_at")[:limit]:
            rows.append(JobRow(label, job_kind_name(model), job, job_detail_url(job)))
    rows.sort(key=lambda row: row.job.created_at, reverse=True)
    return rows[:limit]


def job_state_counts() -> list[dict]:
    """Per job kind, how many rows are in each state: one grouped query over every job table (a UNION ALL)."""
    labelled = sorted(job_models().items())
    grouped = [model.objects.annotate(job_label=Value(label, output_field=models.CharField()))
               .values_list("job_label", "state")
               .annotate(n=Count("id")).order_by() for label, model in labelled]
    counts: dict[tuple[str, str], int] = {}
    if grouped:
        rows = grouped[0].union(*grouped[1:], all=True) if len(grouped) > 1 else grouped[0]
        counts = {(kind, state): n for kind, state, n in rows}
    return [{"label": label, "kind": job_kind_name(model),
             "counts": {state: counts.get((label, state), 0) for state in JobState.values}}
            for label, model in labelled]


@dataclass
class Activity:
    at: datetime
    who: str
    what: str
    url: str


def recent_activity(*, limit: int = RECENT_LIMIT) -> list[Activity]:
    """The latest review comments and decisions and the latest jobs started or finished, merged by time."""
    from django.urls import reverse

    from tasks_app.models import ReviewComment

    events: list[Activity] = []
    comments = ReviewComment.objects.select_related("author", "task").only(
        "created_at", "verdict", "author__username", "task__task_id").order_by("-created_at")[:limit]
    for comment in comments:
        verb = {"approved": "approved", "rejected": "rejected"}.get(comment.verdict, comment.verdict or "commented on")
        events.append(Activity(comment.created_at, comment.author.username if comment.author else "—",
                               f"{verb.replace('_', ' ')} {comment.task.task_id}",
                               reverse("task-detail", kwargs={"task_id": comment.task.task_id})))
    for label, model in job_models().items():
        for job in light_jobs(model).order_by("-created_at")[:limit]:
            kind = job_kind_name(model).lower()
            at = job.finished_at or job.created_at
            what = f"{kind} #{job.id} {job.state}" if job.is_finished else f"started {kind} #{job.id}"
            events.append(Activity(at, job.created_by.username if job.created_by else "—", what, job_detail_url(job)))
    events.sort(key=lambda event: event.at, reverse=True)
    return events[:limit]
