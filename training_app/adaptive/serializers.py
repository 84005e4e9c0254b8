"""Input and output serializers of an adaptive run's environments API."""

from __future__ import annotations

from rest_framework import serializers


class SuccessorDecisionInput(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["approve", "reject"])
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class FrontierSetInput(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")


class EnvironmentsOutput(serializers.Serializer):
    adaptive = serializers.BooleanField(help_text="false: the run trains on a fixed set (nothing below moves)")
    held = serializers.BooleanField()
    band = serializers.ListField(child=serializers.FloatField(), allow_null=True)
    counts = serializers.DictField(child=serializers.IntegerField())
    rows = serializers.ListField(child=serializers.DictField(), help_text="every successor asked for, with its fate")
    waiting = serializers.ListField(child=serializers.DictField(),
                                    help_text="successors waiting for a reviewer (hidden rules for reviewers only)")
    rates = serializers.DictField(help_text="each lineage's success rate by step")
    level_changes = serializers.ListField(child=serializers.DictField())
    frontier = serializers.DictField(allow_null=True, help_text="{step, task_ids} saved with the last checkpoint")
