"""The one place the apps enqueue Celery work: by task name, after the transaction commits.

Apps never import `workers` (workers import the apps' services), so the two never import each other in a circle.
"""

from __future__ import annotations

from django.db import transaction

from sandmle_web.celery import app


def enqueue(task_name: str, *, args: tuple = (), kwargs: dict | None = None, queue: str | None = None) -> None:
    """Send `task_name` once the current transaction commits (at once outside a transaction)."""

    def send() -> None:
        app.send_task(task_name, args=args, kwargs=kwargs or {}, queue=queue)

    transaction.on_commit(send)
