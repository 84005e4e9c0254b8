"""Input and output serializers of the audits' API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.agents.scaffolds.base import FEEDBACK_MODES
from training_app.audits import selectors
from training_app.audits.models import AuditVerdict, DegenerateScore, TaskSetAudit


class TaskSetAuditInput(serializers.Serializer):
    task_set = serializers.SlugField(max_length=80)
    scaffolds = serializers.ListField(child=serializers.ChoiceField(choices=SCAFFOLDS), default=list(SCAFFOLDS),
                                      min_length=1)
    attacks = serializers.ListField(child=serializers.CharField(max_length=80), required=False, default=list,
                                    help_text="attack names (default: every attack that needs no judge); an audit of "
                                              "fewer is partial and opens no training gate")
    scaffold_options = serializers.DictField(
        child=serializers.DictField(), required=False, default=dict,
        help_text='{scaffold: {option: value}}, how the scaffolds play as a run would (e.g. {"react": {"dialect": '
                  '"sandmle"}}); checked by the scaffolds\' validator')
    feedback = serializers.ChoiceField(choices=FEEDBACK_MODES, required=False, allow_blank=True, default="",
                                       help_text="the feedback every episode plays (blank: each attack's own, the "
                                                 "public score); score_answers grades against the real answers")
    reward_scheme = serializers.ChoiceField(choices=["dense", "sparse"], default="dense",
                                            help_text="degenerate solutions break a task when this scheme pays "
                                                      "their tier (dense pays every tier; only a dense audit "
                                                      "vouches for a run on any reward but sparse)")


class TaskSetAuditOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")
    partial = serializers.CharField(source="partial_note", read_only=True,
                                    help_text='"" when the audit played every attack on every scaffold, else '
                                              '"partial: ..." naming what it left out')

    class Meta:
        model = TaskSetAudit
        fields = ["id", "task_set", "scaffolds", "scaffold_options", "feedback", "attacks", "reward_scheme", "planned", "queue", "state", "progress",
                  "progress_message", "error", "passed", "partial", "coverage", "summary", "created_at",
                  "started_at", "finished_at"]


class AuditVerdictOutput(serializers.ModelSerializer):
    class Meta:
        model = AuditVerdict
        fields = ["id", "task_id", "scaffold", "attack", "family", "passed", "reward_earned", "reward_worth",
                  "problems"]


class DegenerateScoreOutput(serializers.ModelSerializer):
    class Meta:
        model = DegenerateScore
        fields = ["task_id", "solution", "score", "milestone", "valid", "medal"]


class FamilyScaffoldOutput(serializers.Serializer):
    """One row of an audit's counts per attack family x scaffold."""

    family = serializers.CharField()
    scaffold = serializers.CharField()
    contained = serializers.IntegerField()
    failing = serializers.IntegerField()


class TaskSetAuditDetailOutput(TaskSetAuditOutput):
    verdicts = AuditVerdictOutput(many=True, read_only=True)
    degenerate_scores = DegenerateScoreOutput(many=True, read_only=True)
    family_scaffold = serializers.SerializerMethodField(
        help_text="contained and failing cases per attack family x scaffold; the degenerate solutions as family "
                  "`degenerate`, scaffold `any`")

    class Meta(TaskSetAuditOutput.Meta):
        fields = TaskSetAuditOutput.Meta.fields + ["verdicts", "degenerate_scores", "family_scaffold"]

    @extend_schema_field(FamilyScaffoldOutput(many=True))
    def get_family_scaffold(self, audit) -> list[dict]:
        return selectors.family_scaffold_summary(audit=audit)
