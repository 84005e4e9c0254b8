"""The one place the apps enqueue Celery work: by task name, after the transaction commits.

Apps never import `workers` (workers import the apps' services), so the two never import each other in a circle.
"""

from __future__ import annotations

import logging

from django.db import transaction
from kombu.exceptions import OperationalError

from sandmle_web.celery import app

log = logging.getLogger(__name__)


def enqueue(task_name: str, *, args: tuple = (), kwargs: dict | None = None, queue: str | None = None) -> None:
    """Send `task_name` once the current transaction commits (at once outside a transaction).

    The row is saved whatever the broker says: when it is unreachable the message is dropped with a warning, and the
    lost-job sweep (workers.system) sends it again once the broker is back, so the launch never fails on it.
    """

    def send() -> None:
        try:
            app.send_task(task_name, args=args, kwargs=kwargs or {}, queue=queue)
        except (OperationalError, OSError) as error:
            log.warning("job queue unreachable, %s%s not sent yet (the sweep resends it): %s", task_name, args, error)
            from sandmle_web.jobs import mark_unsent

            mark_unsent(task_name, args)

    transaction.on_commit(send)
