"""Reads of the task side: seeds, runs, tasks, the review queue and task sets."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from accounts.roles import Role, has_role
from tasks_app.models import ReviewComment, Seed, SynthesisRun, SynthesizedTask, TaskSet

# A task row of a list never shows these: the spec and the synthesis log are the heavy JSON of a task (kilobytes
# each), read only on the task's own page. Deferring them (rather than listing the columns a row shows) keeps every
# light column a template may add loaded, so a new column never turns into one query per row.
TASK_HEAVY_FIELDS = ("spec", "log")


def seed_list() -> QuerySet[Seed]:
    return Seed.objects.select_related("dna").annotate(task_count=Count("tasks")).order_by("name")


def seed_list_rows() -> QuerySet[Seed]:
    """Seeds by name with their number of tasks, for the list page: the DNA's JSON is left for the seed's own page."""
    return Seed.objects.annotate(task_count=Count("tasks")).order_by("name")


def seed_get(*, name: str) -> Seed:
    return Seed.objects.select_related("dna").get(name=name)


def synthesis_run_list(*, seed: Seed | None = None) -> QuerySet[SynthesisRun]:
    runs = (SynthesisRun.objects.select_related("seed", "created_by").annotate(task_count=Count("tasks"))
            .order_by("-created_at", "-id"))
    return runs.filter(seed=seed) if seed else runs


def synthesis_run_list_rows(*, seed: Seed | None = None) -> QuerySet[SynthesisRun]:
    """Runs for a list page: no row shows the summary JSON."""
    return synthesis_run_list(seed=seed).defer("summary")


def task_list(
    *, status: str = "", seed: str = "", modality: str = "", rule_family: str = "", run_id: int | None = None
) -> QuerySet[SynthesizedTask]:
    tasks = SynthesizedTask.objects.select_related("seed", "assigned_to", "reviewed_by")
    if status:
        tasks = tasks.filter(status=status)
    if seed:
        tasks = tasks.filter(seed__name=seed)
    if modality:
        tasks = tasks.filter(modality=modality)
    if rule_family:
        tasks = tasks.filter(rule_family=rule_family)
    if run_id:
        tasks = tasks.filter(run_id=run_id)
    return tasks


def task_list_rows(**filters) -> QuerySet[SynthesizedTask]:
    """`task_list` for a page of rows: the same filters, without the heavy JSON."""
    return task_list(**filters).defer(*TASK_HEAVY_FIELDS)


def task_get(*, task_id: str) -> SynthesizedTask:
    return SynthesizedTask.objects.select_related("seed", "run", "assigned_to", "reviewed_by").get(task_id=task_id)


def review_queue(*, assigned_to=None) -> QuerySet[SynthesizedTask]:
    """Tasks waiting for a person, oldest first; with `assigned_to`, only that reviewer's claimed ones."""
    queue = task_list_rows(status=SynthesizedTask.Status.PENDING_REVIEW).order_by("created_at", "task_id")
    return queue.filter(assigned_to=assigned_to) if assigned_to is not None else queue


def task_counts() -> dict[str, int]:
    counts = dict(SynthesizedTask.objects.values_list("status").annotate(n=Count("id")).order_by())
    return {status: counts.get(status, 0) for status in SynthesizedTask.Status.values}


def task_set_list() -> QuerySet[TaskSet]:
    return TaskSet.objects.annotate(task_count=Count("tasks")).order_by("name")


def task_set_get(*, name: str) -> TaskSet:
    return TaskSet.objects.get(name=name)


def task_comments_for(*, task: SynthesizedTask, user) -> QuerySet[ReviewComment]:
    """The comments on a task that `user` may read: reviewers read all, everyone else only those shared with all."""
    comments = task.comments.select_related("author")
    if has_role(user, Role.REVIEWER):
        return comments
    return comments.filter(visibility=ReviewComment.Visibility.EVERYONE)
