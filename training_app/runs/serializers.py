"""Input and output serializers of the training-run API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from accounts.roles import Role, has_role
from training_app.models import TrainingRun
from training_app.runs import services
from training_app.runs.selectors import training_run_recipe, training_run_shown_config


class TrainingRunInput(serializers.Serializer):
    """Types only; ranges and choices are the engine's (load_train_config names the key it refuses)."""

    task_set = serializers.SlugField()
    kind = serializers.ChoiceField(choices=TrainingRun.Kind.choices, default="grpo")
    model = serializers.CharField(max_length=500)
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    lora_r = serializers.IntegerField(min_value=1, max_value=1024, required=False, allow_null=True, default=None)
    report_to = serializers.ListField(child=serializers.CharField(max_length=32), required=False, max_length=8,
                                      help_text="trackers under the run's folder: [none] (default), or tensorboard, "
                                                "trackio, wandb")
    eval_task_set = serializers.SlugField(required=False, allow_blank=True,
                                          help_text="held-out task set evaluated every eval_every steps")

    def get_fields(self):
        # Every setting of the engine's key table, typed as it declares it; ranges stay the engine's.
        from sandmle.rl.config import config_fields

        fields = super().get_fields()
        kinds = {"int": serializers.IntegerField, "float": serializers.FloatField, "bool": serializers.BooleanField,
                 "options": serializers.DictField,
                 "band": lambda **kw: serializers.ListField(child=serializers.FloatField(), max_length=4, **kw),
                 "levels": lambda **kw: serializers.ListField(child=serializers.IntegerField(), max_length=4, **kw)}
        for entry in config_fields("grpo"):
            if entry["key"] in services.GRPO_SETTINGS and entry["key"] not in fields:
                field = kinds.get(entry["type"], serializers.CharField)
                fields[entry["key"]] = field(required=False, allow_null=True, help_text=entry["help"])
        return fields

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise ValidationError({unknown[0]: ["unknown setting"]})
        return attrs


class CheckpointOutput(serializers.Serializer):
    step = serializers.IntegerField()
    path = serializers.CharField()
    policy = serializers.CharField(help_text="the policy name rollouts and campaigns take: hf:<path>")
    trained_with = serializers.DictField(allow_null=True, help_text="the checkpoint folder's record: scaffold, "
                                         "scaffold_options, feedback, saw_test_scores, preset (null: not recorded)")


class TrainingRunOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    checkpoints = serializers.SerializerMethodField()
    config = serializers.SerializerMethodField(help_text="the resolved config; its tasks named by task id")
    recipe = serializers.SerializerMethodField(help_text="scaffold, options, feedback, saw_test_scores (feedback "
                                                         "score_answers), the preset, what it set and what changed")

    class Meta:
        model = TrainingRun
        fields = ["id", "name", "kind", "task_set", "config", "queue", "state", "progress", "progress_message",
                  "error", "smoke_model", "audit_warning", "recipe", "checkpoints", "created_at", "started_at", "finished_at"]

    @extend_schema_field(serializers.DictField())
    def get_config(self, run) -> dict:
        request = self.context.get("request")
        return training_run_shown_config(run, show_host_paths=request is not None and has_role(request.user, Role.ADMIN))

    @extend_schema_field(serializers.DictField())
    def get_recipe(self, run) -> dict:
        return training_run_recipe(run)

    @extend_schema_field(CheckpointOutput(many=True))
    def get_checkpoints(self, run) -> list[dict]:
        from sandmle.rl.provenance import read_provenance

        return [{"step": c.step, "path": c.path, "policy": f"hf:{c.path}", "trained_with": read_provenance(c.path)}
                for c in run.checkpoints.all()]
