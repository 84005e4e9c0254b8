"""Output serializers of the task API (reviewers also see the hidden rule and the spec)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tasks_app.models import SynthesizedTask
from tasks_app.review import selectors as review_selectors
from tasks_app.review.serializers import CommentOutput
from tasks_app.tasks import bundle_files
from tasks_app.synthesis.models import RNG_MAX


class TaskRegenerateInput(serializers.Serializer):
    rng = serializers.IntegerField(min_value=0, max_value=RNG_MAX, required=False, allow_null=True,
                                   default=None, help_text="omit for a random one")


class TaskListOutput(serializers.ModelSerializer):
    """A task in a list: light columns only (the spec, log and ladder are on its own endpoint).

    `rule_family` is a hidden field: it is sent to reviewers only (`is_reviewer` in the context).
    """

    seed = serializers.CharField(source="seed.name")
    run = serializers.IntegerField(source="run_id", allow_null=True)
    assignee = serializers.CharField(source="assigned_to.username", allow_null=True, default=None)
    rule_family = serializers.CharField(required=False, help_text="reviewers only")

    class Meta:
        model = SynthesizedTask
        fields = ["task_id", "seed", "run", "status", "rejected_by", "title", "domain_id", "sector", "modality",
                  "task_type", "metric", "difficulty", "milestones", "assignee", "rule_family", "bundle_sha256",
                  "created_at", "reviewed_at"]
        # The columns the list reads; everything else (spec, log, ladder, reasons) stays in the database.
        columns = ["task_id", "seed__name", "run_id", "status", "rejected_by", "title", "domain_id", "sector",
                   "modality", "task_type", "metric", "difficulty", "milestones", "assigned_to__username",
                   "rule_family", "bundle_sha256", "created_at", "reviewed_at"]

    # Fields only reviewers receive; everyone else's representation drops them whatever a subclass adds.
    reviewer_only = ("rule_family",)

    def to_representation(self, task):
        data = super().to_representation(task)
        if not self.context.get("is_reviewer"):
            for name in self.reviewer_only:
                data.pop(name, None)
        return data


class TaskOutput(TaskListOutput):
    """One task's row with its reasons and calibration ladder (no heavy JSON, nothing private)."""

    class Meta(TaskListOutput.Meta):
        fields = TaskListOutput.Meta.fields + ["reasons", "ladder"]


class DnaDifferenceOutput(serializers.Serializer):
    name = serializers.CharField()
    seed_value = serializers.CharField()
    task_value = serializers.CharField()
    changed = serializers.BooleanField()


class TaskDnaOutput(serializers.Serializer):
    task_id = serializers.CharField()
    seed = serializers.CharField()
    seed_dna = serializers.DictField(help_text="the seed's DNA")
    task_dna = serializers.DictField(help_text="measured again from the task's public train.csv")
    differences = DnaDifferenceOutput(many=True, help_text="seed beside task; `changed` marks what synthesis moved")


class TaskFileOutput(serializers.Serializer):
    path = serializers.CharField(help_text="relative to the bundle, e.g. public/train.csv")
    size = serializers.IntegerField()
    private = serializers.BooleanField(help_text="under private/: listed and served to reviewers only")
    url = serializers.CharField(help_text="the download endpoint")


class TaskDetailOutput(TaskOutput):
    """One task for its own endpoint: reviewers also get the hidden rule and the spec (which names the rule)."""

    hidden_rule = serializers.SerializerMethodField(help_text="reviewers only: private/rule.json")
    spec = serializers.JSONField(read_only=True, help_text="reviewers only: the TaskSpec")
    comments = serializers.SerializerMethodField(help_text="the comments the caller may read")
    reviewer_only = TaskOutput.reviewer_only + ("hidden_rule", "spec")

    class Meta(TaskOutput.Meta):
        fields = TaskOutput.Meta.fields + ["hidden_rule", "spec", "comments"]

    def get_hidden_rule(self, task) -> dict | None:
        if not self.context.get("is_reviewer"):
            return None  # not even read from disk; to_representation drops the key
        return bundle_files.read_json(task.bundle_dir, "private/rule.json")

    @extend_schema_field(CommentOutput(many=True))
    def get_comments(self, task) -> list:
        comments = review_selectors.task_comments_for(task=task, user=self.context["request"].user)
        return CommentOutput(comments, many=True).data
