"""Rows of the task side: seeds and their DNA, synthesis runs (jobs), synthesized tasks, reviews, task sets."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from sandmle_web.jobs import Job


class Seed(models.Model):
    class Source(models.TextChoices):
        BUNDLED = "bundled"
        UPLOAD = "upload"
        IMPORTED = "imported"  # the placeholder seed of tasks imported from an archive: no data to synthesize from

    name = models.SlugField(max_length=80, unique=True)
    source = models.CharField(max_length=16, choices=Source.choices)
    target = models.CharField(max_length=200)
    task_type = models.CharField(max_length=16)
    metric = models.CharField(max_length=32)
    modality = models.CharField(max_length=16)
    n_rows = models.PositiveIntegerField()
    n_features = models.PositiveIntegerField()
    csv_path = models.CharField(max_length=500, blank=True, default="")  # uploads, under the data dir
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TaskDNA(models.Model):
    seed = models.OneToOneField(Seed, on_delete=models.CASCADE, related_name="dna")
    schema_version = models.PositiveIntegerField()
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)


class SynthesisRun(Job):
    seed = models.ForeignKey(Seed, on_delete=models.CASCADE, related_name="synthesis_runs")
    count = models.PositiveIntegerField()
    rng = models.BigIntegerField(default=0)
    llm_url = models.CharField(max_length=500, blank=True, default="")
    llm_model = models.CharField(max_length=200, blank=True, default="")
    llm_key_env = models.CharField(max_length=100, blank=True, default="")  # "" = settings.SANDMLE_LLM_KEY_ENV
    summary = models.JSONField(default=dict, blank=True)

    task_names = ("workers.synthesis.run_synthesis", "workers.synthesis.regenerate_task")

    class Meta(Job.Meta):
        # The run lists (all runs, a seed's runs) order by newest first.
        indexes = [models.Index(fields=["-created_at"], name="synthrun_created"),
                   models.Index(fields=["seed", "-created_at"], name="synthrun_seed_created")]

    def task_name(self) -> str:
        # A regeneration is a one-task synthesis run whose summary names the task it replaces (tasks_app.regenerate).
        return self.task_names[1] if self.summary.get("regenerates") else self.task_names[0]


class SynthesizedTask(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        PENDING_REVIEW = "pending_review"
        APPROVED = "approved"
        REJECTED = "rejected"
        NEEDS_CHANGES = "needs_changes", "changes requested"  # back to pending review when reopened

    class Difficulty(models.TextChoices):
        # From the calibration ladder's headroom (tasks_app.review_difficulty): how much of the oracle's lead over
        # the baseline the learned references recover. "" for tasks without a ladder.
        EASY = "easy"
        MEDIUM = "medium"
        HARD = "hard"

    class RejectedBy(models.TextChoices):
        NONE = ""
        VALIDATOR = "validator"
        REVIEWER = "reviewer"

    task_id = models.CharField(max_length=100, unique=True)
    run = models.ForeignKey(SynthesisRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="tasks")
    seed = models.ForeignKey(Seed, on_delete=models.CASCADE, related_name="tasks")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT, db_index=True)
    rejected_by = models.CharField(max_length=16, choices=RejectedBy.choices, blank=True, default="")
    reasons = models.JSONField(default=list, blank=True)
    title = models.CharField(max_length=300, blank=True, default="")
    domain_id = models.CharField(max_length=100, blank=True, default="")
    sector = models.CharField(max_length=100, blank=True, default="")
    rule_family = models.CharField(max_length=100, blank=True, default="")
    modality = models.CharField(max_length=16, blank=True, default="")
    task_type = models.CharField(max_length=16, blank=True, default="")
    metric = models.CharField(max_length=32, blank=True, default="")
    milestones = models.JSONField(default=dict, blank=True)
    ladder = models.JSONField(default=dict, blank=True)
    spec = models.JSONField(default=dict, blank=True)
    log = models.JSONField(default=list, blank=True)
    bundle_dir = models.CharField(max_length=500, blank=True, default="")
    bundle_sha256 = models.CharField(max_length=64, blank=True, default="")
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_tasks"
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="reviewed_tasks"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    difficulty = models.CharField(max_length=8, choices=Difficulty.choices, blank=True, default="", db_index=True)
    # Approvals count within one round; a reject or a request for changes ends the round (tasks_app.review_services).
    review_round = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "task_id"]
        # Each list filter followed by the list's order, so a filtered page reads rows in order from an index
        # instead of sorting 10,000 tasks; the review queue reads pending tasks oldest first.
        indexes = [
            models.Index(fields=["-created_at", "task_id"], name="task_created"),
            models.Index(fields=["status", "-created_at", "task_id"], name="task_status_created"),
            models.Index(fields=["status", "created_at", "task_id"], name="task_status_oldest"),
            models.Index(fields=["seed", "-created_at", "task_id"], name="task_seed_created"),
            models.Index(fields=["modality", "-created_at", "task_id"], name="task_modality_created"),
            models.Index(fields=["domain_id", "-created_at", "task_id"], name="task_domain_created"),
            models.Index(fields=["rule_family", "-created_at", "task_id"], name="task_family_created"),
            models.Index(fields=["run", "-created_at", "task_id"], name="task_run_created"),
        ]

    def __str__(self) -> str:
        return self.task_id


class ReviewComment(models.Model):
    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    body = models.TextField()
    class Visibility(models.TextChoices):
        REVIEWERS = "reviewers"  # reviewers discuss the hidden rule: by default nobody else reads along
        EVERYONE = "everyone"

    verdict = models.CharField(max_length=16, blank=True, default="")  # approved / rejected / "" for a remark
    visibility = models.CharField(max_length=16, choices=Visibility.choices, default=Visibility.REVIEWERS)
    # Threads: a reply names the comment it answers; resolving the thread's first comment resolves the thread.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies")
    # A comment on one turn of one trajectory of the task (string reference: training_app imports this module).
    trajectory = models.ForeignKey("training_app.Trajectory", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="turn_comments")
    turn = models.PositiveIntegerField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="resolved_comments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]


class ReviewDecision(models.Model):
    """One reviewer's verdict on a task in one review round, with the reason they gave."""

    class Verdict(models.TextChoices):
        APPROVE = "approve"
        REJECT = "reject"
        REQUEST_CHANGES = "request_changes"

    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                 related_name="review_decisions")
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    reason = models.TextField()
    review_round = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["task", "review_round"], name="decision_task_round")]


class TaskAuditEntry(models.Model):
    """One change of a task's status or assignee: who, when, from what to what, why, and through which route."""

    class Kind(models.TextChoices):
        STATUS = "status"
        ASSIGNMENT = "assignment"

    class Via(models.TextChoices):
        SYNTHESIS = "synthesis"  # stored by a synthesis run: the critic validated or rejected it
        REGENERATE = "regenerate"  # stored by a regeneration run, as a new version of a task
        REVIEW = "review"  # one reviewer's decision or assignment
        BULK = "bulk"  # the same, applied to a selection in the queue
        REOPEN = "reopen"  # sent back to review after changes were requested

    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="audit_entries")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="task_audit_entries")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.STATUS)
    from_value = models.CharField(max_length=150, blank=True, default="")  # a status, or an assignee's username
    to_value = models.CharField(max_length=150, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    via = models.CharField(max_length=16, choices=Via.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["task", "created_at"], name="audit_task_created")]


class SavedReviewView(models.Model):
    """A reviewer's named set of review-queue filters, listed on the queue."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_review_views")
    name = models.CharField(max_length=80)
    filters = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="one_saved_view_name_per_owner")]

    def __str__(self) -> str:
        return self.name


class TaskSet(models.Model):
    name = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True, default="")
    tasks = models.ManyToManyField(SynthesizedTask, related_name="task_sets")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# Feature folders' models, registered with the app (tasks_app/<feature>/models.py).
from tasks_app.task_archives.models import TaskArchiveImport, TaskSetExport  # noqa: E402,F401
