"""Rows of seeds and their DNA."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Seed(models.Model):
    class Source(models.TextChoices):
        BUNDLED = "bundled"
        UPLOAD = "upload"
        IMPORTED = "imported"  # the placeholder seed of tasks imported from an archive: no data to synthesize from

    name = models.SlugField(max_length=80, unique=True)
    source = models.CharField(max_length=16, choices=Source.choices)
    target = models.CharField(max_length=200)
    task_type = models.CharField(max_length=16)
    metric = models.CharField(max_length=32)
    modality = models.CharField(max_length=16)
    n_rows = models.PositiveIntegerField()
    n_features = models.PositiveIntegerField()
    csv_path = models.CharField(max_length=500, blank=True, default="")  # uploads, under the data dir
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TaskDNA(models.Model):
    seed = models.OneToOneField(Seed, on_delete=models.CASCADE, related_name="dna")
    schema_version = models.PositiveIntegerField()
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
