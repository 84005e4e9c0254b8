"""App config of training_app."""

from django.apps import AppConfig


class TrainingAppConfig(AppConfig):
    name = "training_app"
    default_auto_field = "django.db.models.BigAutoField"
