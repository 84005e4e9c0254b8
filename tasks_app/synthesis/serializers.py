"""Input and output serializers of the synthesis run API."""

from __future__ import annotations

from rest_framework import serializers

from tasks_app.models import SynthesisRun
from tasks_app.synthesis.models import RNG_MAX
from tasks_app.synthesis.services import synthesis_llm_defaults


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
            given = synthesis_llm_defaults()
        return data | given


class SynthesisRunListOutput(serializers.ModelSerializer):
    seed = serializers.CharField(source="seed.name")

    class Meta:
        model = SynthesisRun
        fields = ["id", "seed", "count", "rng", "llm_url", "llm_model", "llm_key_env", "state", "progress",
                  "progress_message", "error", "created_at", "started_at", "finished_at"]


class SynthesisRunOutput(SynthesisRunListOutput):
    class Meta(SynthesisRunListOutput.Meta):
        fields = SynthesisRunListOutput.Meta.fields + ["summary"]
