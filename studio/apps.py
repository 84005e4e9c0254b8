"""The studio app: pages that read more than one app (dashboard, job progress) live here, not in the project package."""

from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"
    verbose_name = "Studio"
