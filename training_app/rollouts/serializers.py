"""Input and output serializers of the rollout API."""

from rest_framework import serializers

from training_app.models import RolloutBatch, Trajectory
from training_app.shared.budget_inputs import BudgetInputs
from training_app.shared.schedule_inputs import ScheduleField


class RolloutBatchInput(BudgetInputs):
    task_set = serializers.SlugField()
    scaffold = serializers.ChoiceField(choices=RolloutBatch.Scaffold.choices)
    policy = serializers.CharField(max_length=500, default="baseline")
    samples = serializers.IntegerField(min_value=1, max_value=64, default=1)
    concurrency = serializers.IntegerField(min_value=1, max_value=32, default=2)
    feedback = serializers.ChoiceField(choices=RolloutBatch.Feedback.choices, default="score")
    scaffold_options = serializers.DictField(
        required=False, default=dict,
        help_text="the scaffold's {option: value} or {\"preset\": \"upstream\" | \"paper\" | \"fast\"}")
    schedule = ScheduleField()
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class RolloutBatchListOutput(serializers.ModelSerializer):
    task_set = serializers.CharField(source="task_set.name")

    class Meta:
        model = RolloutBatch
        fields = ["id", "name", "task_set", "scaffold", "policy", "samples", "concurrency", "feedback", "budgets",
                  "scaffold_options", "schedule", "queue", "state", "progress", "progress_message", "error", "created_at", "started_at",
                  "finished_at"]


class RolloutBatchOutput(RolloutBatchListOutput):
    class Meta(RolloutBatchListOutput.Meta):
        fields = RolloutBatchListOutput.Meta.fields + ["summary"]


class TrajectoryOutput(serializers.ModelSerializer):
    """A trajectory's scalar columns; the heavy record (turns, tokens, masks) only on its own endpoint."""

    task_id = serializers.CharField(source="task.task_id")
    batch = serializers.IntegerField(source="batch_id")

    class Meta:
        model = Trajectory
        fields = ["id", "batch", "task_id", "sample_index", "termination", "valid_submission", "milestone", "score",
                  "reward", "format_rate", "n_turns", "wall_s", "created_at"]
        # The columns a list reads (everything but the record).
        columns = ["id", "batch_id", "task__task_id", "sample_index", "termination", "valid_submission", "milestone",
                   "score", "reward", "format_rate", "n_turns", "wall_s", "created_at"]


class TrajectoryDetailOutput(TrajectoryOutput):
    record = serializers.JSONField(read_only=True, help_text="the engine's trajectory: turns, tokens, masks, grade, rewards")

    class Meta(TrajectoryOutput.Meta):
        fields = TrajectoryOutput.Meta.fields + ["record"]
