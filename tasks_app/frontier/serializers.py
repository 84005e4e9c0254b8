"""Input and output serializers of the frontier runs' API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tasks_app.frontier import selectors
from tasks_app.frontier.models import SAMPLES_MAX, FrontierRun
from training_app.models import RolloutBatch


class FrontierRunInput(serializers.Serializer):
    task_set = serializers.SlugField(max_length=80)
    policy = serializers.CharField(max_length=500, help_text="baseline, openai:MODEL@URL or hf:PATH")
    samples = serializers.IntegerField(min_value=1, max_value=SAMPLES_MAX, default=4)
    band_low = serializers.FloatField(default=0.2, help_text="tasks solved less often than this get an easier successor")
    band_high = serializers.FloatField(default=0.8, help_text="tasks solved more often than this get a harder successor")
    scaffold = serializers.ChoiceField(choices=RolloutBatch.Scaffold.choices, default="react")


class FrontierRunOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    new_task_set = serializers.CharField(source="new_task_set.name", allow_null=True, default=None,
                                         help_text="the re-levelled set, once it holds an approved task")

    class Meta:
        model = FrontierRun
        fields = ["id", "task_set", "policy", "samples", "band_low", "band_high", "scaffold", "queue", "state",
                  "progress", "progress_message", "error", "new_task_set", "created_at", "started_at", "finished_at"]


class FrontierSuccessorOutput(serializers.Serializer):
    task_id = serializers.CharField(allow_null=True, help_text="null when the critic rejected every try")
    parent = serializers.CharField()
    level = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["validated", "rejected"], help_text="the critic's verdict")
    review_status = serializers.CharField(help_text="the stored task's review status now (validated ones)")
    reason = serializers.CharField(help_text='why it was made: "solved 2 of 2 at level 0"')
    reasons = serializers.ListField(child=serializers.CharField(), help_text="why each try was rejected")
    headroom = serializers.FloatField(allow_null=True)
    milestones = serializers.DictField(child=serializers.FloatField())
    attempts = serializers.IntegerField()
    seconds = serializers.FloatField()


class FrontierRowOutput(serializers.Serializer):
    task_id = serializers.CharField()
    level = serializers.IntegerField()
    rate = serializers.FloatField(help_text="the policy's success rate before")
    samples = serializers.IntegerField(help_text="episodes the rate was measured on")
    action = serializers.ChoiceField(choices=["keep", "harder", "easier"])
    note = serializers.CharField(help_text="why a task outside the band was kept (already at the table's end)")
    successor = FrontierSuccessorOutput(allow_null=True)
    rate_after = serializers.FloatField(allow_null=True, help_text="the successor's rate for the same policy")


class FrontierRunDetailOutput(FrontierRunOutput):
    summary = serializers.SerializerMethodField()
    rows = serializers.SerializerMethodField()

    class Meta(FrontierRunOutput.Meta):
        fields = FrontierRunOutput.Meta.fields + ["summary", "rows"]

    def get_summary(self, run) -> dict:
        return selectors.frontier_summary(run=run)

    @extend_schema_field(FrontierRowOutput(many=True))
    def get_rows(self, run) -> list[dict]:
        return selectors.frontier_table(run=run)
