"""Input and output serializers of the review API, one small pair per operation."""

from __future__ import annotations

from rest_framework import serializers

from tasks_app.models import ReviewComment, ReviewDecision, SavedReviewView, SynthesizedTask, TaskAuditEntry
from tasks_app.review.filters import FILTER_NAMES
from tasks_app.review.services import BULK_ACTIONS, BULK_MAX_TASKS, MAX_REASON_CHARS


class QueueTaskOutput(serializers.ModelSerializer):
    seed = serializers.CharField(source="seed.name")
    assignee = serializers.CharField(source="assigned_to.username", allow_null=True, default=None)
    approvals = serializers.IntegerField(help_text="distinct approvals in the current review round")

    class Meta:
        model = SynthesizedTask
        fields = ["task_id", "title", "status", "seed", "domain_id", "modality", "rule_family", "difficulty",
                  "review_round", "approvals", "assignee", "created_at"]


class DecisionInput(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=ReviewDecision.Verdict.choices)
    reason = serializers.CharField(max_length=MAX_REASON_CHARS)


class DecisionOutput(serializers.ModelSerializer):
    reviewer = serializers.CharField(source="reviewer.username", allow_null=True, default=None)

    class Meta:
        model = ReviewDecision
        fields = ["id", "reviewer", "verdict", "reason", "review_round", "created_at"]


class ReviewStateOutput(serializers.Serializer):
    task_id = serializers.CharField()
    status = serializers.CharField()
    review_round = serializers.IntegerField()
    approvals = serializers.IntegerField()
    min_approvals = serializers.IntegerField()
    assignee = serializers.CharField(allow_null=True)


class ReasonInput(serializers.Serializer):
    reason = serializers.CharField(max_length=MAX_REASON_CHARS)


class AssignmentInput(serializers.Serializer):
    assignee = serializers.CharField(max_length=150, allow_null=True, help_text="a reviewer's username; null unassigns")
    reason = serializers.CharField(max_length=MAX_REASON_CHARS, required=False, allow_blank=True, default="")


class AuditOutput(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)

    class Meta:
        model = TaskAuditEntry
        fields = ["id", "kind", "from_value", "to_value", "reason", "via", "actor", "created_at"]


class CommentInput(serializers.Serializer):
    body = serializers.CharField(max_length=MAX_REASON_CHARS)
    visibility = serializers.ChoiceField(choices=ReviewComment.Visibility.choices, default="reviewers")
    parent = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False, allow_null=True)
    trajectory = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False, allow_null=True)
    turn = serializers.IntegerField(min_value=0, max_value=10**6, required=False, allow_null=True)


class ReplyOutput(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", allow_null=True, default=None)

    class Meta:
        model = ReviewComment
        fields = ["id", "author", "body", "visibility", "verdict", "created_at"]


class ThreadOutput(ReplyOutput):
    replies = ReplyOutput(source="thread_replies", many=True, read_only=True, default=list)
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True, default=None)

    class Meta(ReplyOutput.Meta):
        fields = ReplyOutput.Meta.fields + ["trajectory", "turn", "resolved_at", "resolved_by", "replies"]


class ResolveInput(serializers.Serializer):
    resolved = serializers.BooleanField(default=True)


class SavedViewInput(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    filters = serializers.DictField(child=serializers.CharField(max_length=150, allow_blank=True))

    def validate_filters(self, filters):
        unknown = sorted(set(filters) - set(FILTER_NAMES))
        if unknown:
            raise serializers.ValidationError(f"unknown filters {', '.join(unknown)}; expected {', '.join(FILTER_NAMES)}")
        return filters


class SavedViewOutput(serializers.ModelSerializer):
    class Meta:
        model = SavedReviewView
        fields = ["id", "name", "filters", "created_at"]


class BulkInput(serializers.Serializer):
    task_ids = serializers.ListField(child=serializers.CharField(max_length=100), min_length=1,
                                     max_length=BULK_MAX_TASKS)
    action = serializers.ChoiceField(choices=[(name, name) for name in BULK_ACTIONS])
    reason = serializers.CharField(max_length=MAX_REASON_CHARS, required=False, allow_blank=True, default="")
    assignee = serializers.CharField(max_length=150, required=False, allow_null=True, default=None)


class BulkOutput(serializers.Serializer):
    results = serializers.DictField(child=serializers.CharField(), help_text='task id: "ok" or why it was refused')


class CommentOutput(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", allow_null=True)

    class Meta:
        model = ReviewComment
        fields = ["id", "author", "body", "verdict", "visibility", "created_at"]
