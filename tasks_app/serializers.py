"""Small input and output serializers of the task API, one per operation."""

from __future__ import annotations

from rest_framework import serializers

from tasks_app.forms import RNG_MAX
from tasks_app.models import ReviewComment, Seed, SynthesisRun, SynthesizedTask, TaskSet


class SeedOutput(serializers.ModelSerializer):
    dna = serializers.SerializerMethodField()

    class Meta:
        model = Seed
        fields = ["name", "source", "target", "task_type", "metric", "modality", "n_rows", "n_features", "created_at", "dna"]

    def get_dna(self, seed) -> dict:
        return seed.dna.data if hasattr(seed, "dna") else {}


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


class SynthesisRunOutput(serializers.ModelSerializer):
    seed = serializers.CharField(source="seed.name")

    class Meta:
        model = SynthesisRun
        fields = ["id", "seed", "count", "rng", "llm_url", "llm_model", "llm_key_env", "state", "progress", "progress_message", "error",
                  "summary", "created_at", "started_at", "finished_at"]


class TaskOutput(serializers.ModelSerializer):
    """The public view of a task: hidden rules are added only for reviewers (see `task_payload`)."""

    seed = serializers.CharField(source="seed.name")
    run = serializers.IntegerField(source="run_id", allow_null=True)

    class Meta:
        model = SynthesizedTask
        fields = ["task_id", "seed", "run", "status", "rejected_by", "reasons", "title", "domain_id", "sector",
                  "modality", "task_type", "metric", "milestones", "ladder", "bundle_sha256", "created_at", "reviewed_at"]


class ReviewDecisionInput(serializers.Serializer):
    comment = serializers.CharField(required=False, default="", allow_blank=True)


class RejectInput(serializers.Serializer):
    reason = serializers.CharField()


class CommentInput(serializers.Serializer):
    body = serializers.CharField()
    visibility = serializers.ChoiceField(choices=ReviewComment.Visibility.choices,
                                         default=ReviewComment.Visibility.REVIEWERS)


class CommentOutput(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", allow_null=True)

    class Meta:
        model = ReviewComment
        fields = ["id", "author", "body", "verdict", "visibility", "created_at"]


class TaskSetInput(serializers.Serializer):
    name = serializers.SlugField(max_length=80)
    task_ids = serializers.ListField(child=serializers.CharField(), allow_empty=False)
    description = serializers.CharField(required=False, default="", allow_blank=True)


class TaskSetOutput(serializers.ModelSerializer):
    task_ids = serializers.SlugRelatedField(source="tasks", many=True, read_only=True, slug_field="task_id")

    class Meta:
        model = TaskSet
        fields = ["name", "description", "task_ids", "created_at"]
