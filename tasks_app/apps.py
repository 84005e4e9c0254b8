"""App config of tasks_app."""

from django.apps import AppConfig


class TasksAppConfig(AppConfig):
    name = "tasks_app"
    default_auto_field = "django.db.models.BigAutoField"
