"""Input and output serializers of the seed API."""

from __future__ import annotations

from rest_framework import serializers

from tasks_app.models import Seed


class SeedListOutput(serializers.ModelSerializer):
    """A seed in a list: its columns; the DNA is on the seed's own endpoints."""

    class Meta:
        model = Seed
        fields = ["name", "source", "target", "task_type", "metric", "modality", "n_rows", "n_features", "created_at"]


class SeedOutput(SeedListOutput):
    dna = serializers.SerializerMethodField()

    class Meta(SeedListOutput.Meta):
        fields = SeedListOutput.Meta.fields + ["dna"]

    def get_dna(self, seed) -> dict:
        return seed.dna.data if hasattr(seed, "dna") else {}


class SeedDnaOutput(serializers.Serializer):
    seed = serializers.CharField()
    schema_version = serializers.IntegerField(allow_null=True)
    dna = serializers.DictField(help_text="the seed's TaskDNA: structural statistics only, no rows")


class SeedUploadInput(serializers.Serializer):
    name = serializers.SlugField(max_length=80)
    file = serializers.FileField()
    target = serializers.CharField(max_length=200)
    task_type = serializers.ChoiceField(choices=["", "binary", "multiclass", "regression"], required=False, default="")
    metric = serializers.CharField(max_length=32, required=False, default="", allow_blank=True)
