"""Input and output serializers of the eval-campaign API."""

from __future__ import annotations

from rest_framework import serializers

from training_app.models import EvalCampaign, RolloutBatch
from training_app.shared.budget_inputs import BudgetInputs
from training_app.shared.schedule_inputs import ScheduleField


class CampaignInput(BudgetInputs):
    task_set = serializers.SlugField()
    policies = serializers.ListField(child=serializers.CharField(max_length=500), min_length=1)
    scaffolds = serializers.ListField(child=serializers.ChoiceField(choices=RolloutBatch.Scaffold.choices), min_length=1)
    seeds = serializers.IntegerField(min_value=1, max_value=20, default=3)
    baseline = serializers.CharField(max_length=500, required=False, allow_blank=True, allow_null=True, default=None)
    feedback = serializers.ChoiceField(choices=RolloutBatch.Feedback.choices, default="score")
    scaffold_options = serializers.DictField(
        child=serializers.DictField(), required=False, default=dict,
        help_text="per scaffold, {option: value} or {\"preset\": \"upstream\" | \"paper\" | \"fast\"}; "
                  "checked per scaffold, the option named in a 400")
    schedule = ScheduleField()
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))  # a misspelt setting must not be dropped silently
        if unknown:
            raise serializers.ValidationError({unknown[0]: ["unknown setting"]})
        return attrs


class CampaignOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    episodes = serializers.SerializerMethodField(help_text="episodes finished so far")

    class Meta:
        model = EvalCampaign
        fields = ["id", "name", "task_set", "spec", "queue", "state", "progress", "progress_message", "error",
                  "episodes", "created_at", "started_at", "finished_at"]

    def get_episodes(self, campaign) -> int:
        # Lists annotate the count (see _campaigns); a row just launched or cancelled counts once.
        counted = getattr(campaign, "episode_count", None)
        return campaign.episodes.count() if counted is None else counted
