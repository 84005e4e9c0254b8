"""The Celery app: configured from Django settings (CELERY_*), tasks imported from `workers`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sandmle_web.settings")

app = Celery("sandmle")
app.config_from_object("django.conf:settings", namespace="CELERY")
