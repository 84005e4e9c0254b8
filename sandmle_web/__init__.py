"""The Django project of SandMLE Studio; importing it loads the Celery app so shared tasks bind to it."""

from sandmle_web.celery import app as celery_app

__all__ = ["celery_app"]
