"""Small input and output serializers of the task API, one per operation."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tasks_app import bundle_files, selectors

from tasks_app.forms import RNG_MAX
from tasks_app.models import ReviewComment, Seed, SynthesisRun, SynthesizedTask, TaskSet
from tasks_app.regenerate import MAX_RNG as REGENERATE_MAX_RNG


class SeedListOutput(serializers.ModelSerializer):
    """A seed in a list: its columns; the DNA is on the seed's own endpoints."""

    class Meta:
        model = Seed
        fields = ["name", "source", "target", "task_type", "metric", "modality", "n_rows", "n_features", "created_at"]


class SeedOutput(SeedListOutput):
    dna = serializers.SerializerMethodField()

    class Meta(SeedListOutput.Meta):
        fields = SeedListOutput.Meta.fields + ["dna"]

    def get_dna(self, seed) -> dict:
        return seed.dna.data if hasattr(seed, "dna") else {}


class SeedDnaOutput(serializers.Serializer):
    seed = serializers.CharField()
    schema_version = serializers.IntegerField(allow_null=True)
    dna = serializers.DictField(help_text="the seed's TaskDNA: structural statistics only, no rows")


class SeedUploadInput(serializers.Serializer):
    name = serializers.SlugField(max_length=80)
    file = serializers.FileField()
    target = serializers.CharField(max_length=200)
    task_type = serializers.ChoiceField(choices=["", "binary", "multiclass", "regression"], required=False, default="")
    metric = serializers.CharField(max_length=32, required=False, default="", allow_blank=True)


class SynthesisRunInput(serializers.Serializer):
    seed = serializers.SlugField()
    count = serializers.IntegerField(min_value=1, max_value=200)
    rng = serializers.IntegerField(min_value=0, max_value=RNG_MAX, required=False, default=0)
    # Omit all three LLM fields to get the deployment's defaults (SANDMLE_LLM_*); send an empty llm_url for none.
    llm_url = serializers.URLField(required=False, allow_blank=True, max_length=500)
    llm_model = serializers.CharField(required=False, allow_blank=True, max_length=200)
    llm_key_env = serializers.CharField(required=False, allow_blank=True, max_length=100)

    def validate(self, data):
        given = {name: data.get(name, "") for name in ("llm_url", "llm_model", "llm_key_env")}
        if not any(name in self.initial_data for name in given):
            from tasks_app.services import synthesis_llm_defaults

            given = synthesis_llm_defaults()
        return data | given


class TaskRegenerateInput(serializers.Serializer):
    rng = serializers.IntegerField(min_value=0, max_value=REGENERATE_MAX_RNG, required=False, allow_null=True,
                                   default=None, help_text="omit for a random one")


class SynthesisRunListOutput(serializers.ModelSerializer):
    seed = serializers.CharField(source="seed.name")

    class Meta:
        model = SynthesisRun
        fields = ["id", "seed", "count", "rng", "llm_url", "llm_model", "llm_key_env", "state", "progress",
                  "progress_message", "error", "created_at", "started_at", "finished_at"]


class SynthesisRunOutput(SynthesisRunListOutput):
    class Meta(SynthesisRunListOutput.Meta):
        fields = SynthesisRunListOutput.Meta.fields + ["summary"]


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


class CommentOutput(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", allow_null=True)

    class Meta:
        model = ReviewComment
        fields = ["id", "author", "body", "verdict", "visibility", "created_at"]


class TaskSetFilterInput(serializers.Serializer):
    """The task-set page's picker filter (tasks_app.task_set_picker): the set takes every approved task it matches."""

    q = serializers.CharField(required=False, allow_blank=True, max_length=200,
                              help_text="words that each appear in the task's id, title or domain")
    seed = serializers.CharField(required=False, allow_blank=True, max_length=80)
    modality = serializers.CharField(required=False, allow_blank=True, max_length=16)
    difficulty = serializers.ChoiceField(required=False, allow_blank=True, choices=SynthesizedTask.Difficulty.choices)
    rule_family = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                        help_text="reviewers only; ignored for other roles")


class TaskSetInput(serializers.Serializer):
    name = serializers.SlugField(max_length=80)
    task_ids = serializers.ListField(child=serializers.CharField(max_length=100), allow_empty=False, required=False,
                                     max_length=10000, help_text="the approved tasks; or give `filter` instead")
    filter = TaskSetFilterInput(required=False, help_text="every approved task matching it; or give `task_ids`")
    description = serializers.CharField(required=False, default="", allow_blank=True)

    def validate(self, attrs):
        if ("task_ids" in attrs) == ("filter" in attrs):
            raise serializers.ValidationError({"task_ids": ["give either task_ids or filter, not both or neither"]})
        return attrs


class TaskSetListOutput(serializers.ModelSerializer):
    task_count = serializers.IntegerField(read_only=True)
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)

    class Meta:
        model = TaskSet
        fields = ["name", "description", "task_count", "created_by", "created_at"]


class TaskSetOutput(serializers.ModelSerializer):
    task_ids = serializers.SlugRelatedField(source="tasks", many=True, read_only=True, slug_field="task_id")
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)

    class Meta:
        model = TaskSet
        fields = ["name", "description", "task_ids", "created_by", "created_at"]


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
        return CommentOutput(selectors.task_comments_for(task=task, user=self.context["request"].user), many=True).data
