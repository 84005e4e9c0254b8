"""Input and output serializers of the task-set API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tasks_app.models import SynthesizedTask, TaskSet, TaskSetChange
from tasks_app.task_sets.models import DESCRIPTION_MAX_CHARS
from tasks_app.shared import training_hooks


class TaskSetFilterInput(serializers.Serializer):
    """The task-set page's picker filter (tasks_app.task_sets.picker): the set takes every approved task it matches."""

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
    description = serializers.CharField(max_length=DESCRIPTION_MAX_CHARS, required=False, default="", allow_blank=True)

    def validate(self, attrs):
        if ("task_ids" in attrs) == ("filter" in attrs):
            raise serializers.ValidationError({"task_ids": ["give either task_ids or filter, not both or neither"]})
        return attrs


class TaskSetEditInput(serializers.Serializer):
    name = serializers.SlugField(max_length=80, required=False)
    description = serializers.CharField(max_length=DESCRIPTION_MAX_CHARS, required=False, allow_blank=True)
    add_task_ids = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=1000,
                                         help_text="approved tasks to add")
    remove_task_ids = serializers.ListField(child=serializers.CharField(max_length=100), required=False,
                                            max_length=10000, help_text="tasks of the set to remove")


class TaskSetCloneInput(serializers.Serializer):
    name = serializers.SlugField(max_length=80, help_text="the copy's name")
    description = serializers.CharField(max_length=DESCRIPTION_MAX_CHARS, required=False, allow_blank=True,
                                        help_text="default: the original's description")


class TaskSetListOutput(serializers.ModelSerializer):
    task_count = serializers.IntegerField(read_only=True)
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)

    class Meta:
        model = TaskSet
        fields = ["name", "description", "task_count", "created_by", "created_at", "retired_at"]


class TaskSetAuditState(serializers.Serializer):
    """The set's newest finished audit as the training gate reads it."""

    id = serializers.IntegerField()
    passed = serializers.BooleanField(allow_null=True)
    partial = serializers.CharField(help_text='"" or "partial: ..." (played fewer attacks or scaffolds)')
    stale = serializers.ListField(child=serializers.CharField(),
                                  help_text="tasks added, changed or removed since the audit played them")
    finished_at = serializers.DateTimeField(allow_null=True)


class TaskSetOutput(serializers.ModelSerializer):
    task_ids = serializers.SlugRelatedField(source="tasks", many=True, read_only=True, slug_field="task_id")
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    audit = serializers.SerializerMethodField(help_text="the newest finished audit; null when never audited")

    class Meta:
        model = TaskSet
        fields = ["name", "description", "task_ids", "created_by", "created_at", "retired_at", "audit"]

    @extend_schema_field(TaskSetAuditState(allow_null=True))
    def get_audit(self, task_set) -> dict | None:
        audit = training_hooks.last_audit(task_set=task_set)
        if audit is None:
            return None
        return {"id": audit.id, "passed": audit.passed, "partial": audit.partial_note,
                "stale": training_hooks.stale_lines(audit=audit, task_set=task_set),
                "finished_at": audit.finished_at}


class TaskSetRetireInput(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000,
                                   help_text="why; kept in the set's history, read by reviewers")


class TaskSetChangeOutput(serializers.ModelSerializer):
    """One row of a set's history; `details` as the caller may read them (a retire reason for reviewers only)."""

    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)
    details = serializers.DictField(source="visible_details", read_only=True)

    class Meta:
        model = TaskSetChange
        fields = ["what", "actor", "at", "details"]
