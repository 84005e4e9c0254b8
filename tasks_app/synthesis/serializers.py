"""Input and output serializers of the synthesis run API."""

from __future__ import annotations

from rest_framework import serializers

from accounts.roles import Role, has_role

from tasks_app.models import SynthesisRun, SynthesizedTask
from sandmle.synth.noise import NOISE_SCALE_MAX
from sandmle.synth.pipeline import MAX_TRAIN
from tasks_app.synthesis.models import MIN_TRAIN_ROWS, RNG_MAX
from tasks_app.synthesis.services import synthesis_llm_defaults


class SynthesisRunInput(serializers.Serializer):
    seed = serializers.SlugField()
    count = serializers.IntegerField(min_value=1, max_value=200)
    rng = serializers.IntegerField(min_value=0, max_value=RNG_MAX, required=False, default=0)
    # Omit all three LLM fields to get the deployment's defaults (SANDMLE_LLM_*); send an empty llm_url for none.
    llm_url = serializers.URLField(required=False, allow_blank=True, max_length=500)
    llm_model = serializers.CharField(required=False, allow_blank=True, max_length=200)
    llm_key_env = serializers.CharField(required=False, allow_blank=True, max_length=100)
    rule_family = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                        help_text="the hidden rule's family (one that fits the seed; reviewers only); "
                                                  "empty: any")
    n_train = serializers.IntegerField(required=False, allow_null=True, min_value=MIN_TRAIN_ROWS, max_value=MAX_TRAIN,
                                       help_text="training rows of each task; null: drawn per task")
    until_passing = serializers.BooleanField(required=False, default=False,
                                             help_text="keep making tasks until `count` pass the critic (and meet "
                                                       "the targets)")
    noise_scale = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=NOISE_SCALE_MAX,
                                         help_text="multiplies each drawn noise intensity: 0 clean tasks, 1 (or null) "
                                                   "the engine's usual noise")
    min_headroom = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1,
                                          help_text="target: the least share of the oracle's lead the learned "
                                                    "references recover; tasks below it are rejected")
    # The task model's choices (the engine's bands, sandmle.synth.targets.DIFFICULTIES): one enum in the schema.
    difficulty = serializers.ChoiceField(choices=SynthesizedTask.Difficulty.choices, required=False, allow_blank=True,
                                         help_text="target: the difficulty (by headroom) a task must have to pass")

    def validate(self, data):
        given = {name: data.get(name, "") for name in ("llm_url", "llm_model", "llm_key_env")}
        if not any(name in self.initial_data for name in given):
            given = synthesis_llm_defaults()
        return data | given


class SynthesisRunListOutput(serializers.ModelSerializer):
    seed = serializers.CharField(source="seed.name")

    class Meta:
        model = SynthesisRun
        fields = ["id", "seed", "count", "rng", "llm_url", "llm_model", "llm_key_env", "state", "progress",
                  "progress_message", "error", "created_at", "started_at", "finished_at"]
        extra_kwargs = {"llm_key_env": {"help_text": "the worker's variable holding the key; admins only"}}

    def to_representation(self, run) -> dict:
        # Which environment variables hold the worker's secrets is the admin's to know, as on a training run's judge.
        data = super().to_representation(run)
        request = self.context.get("request")
        if request is None or not has_role(request.user, Role.ADMIN):
            data.pop("llm_key_env", None)
        return data


class SynthesisRunOutput(SynthesisRunListOutput):
    controls = serializers.SerializerMethodField(help_text="n_train, until_passing, noise_scale, min_headroom, difficulty; "
                                                          "rule_family for reviewers only")

    class Meta(SynthesisRunListOutput.Meta):
        fields = SynthesisRunListOutput.Meta.fields + ["summary", "controls"]

    def get_controls(self, run) -> dict:
        # Which family a run's tasks have is the reviewers' secret, like each task's rule_family.
        request = self.context.get("request")
        reviewer = request is not None and has_role(request.user, Role.REVIEWER)
        return {key: value for key, value in (run.controls or {}).items() if reviewer or key != "rule_family"}
