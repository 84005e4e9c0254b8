"""Celery tasks: each takes a row id, claims the row, calls a service, and writes results by id."""
