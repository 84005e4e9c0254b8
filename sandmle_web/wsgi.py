"""WSGI entry point for gunicorn and runserver."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sandmle_web.settings")
application = get_wsgi_application()
