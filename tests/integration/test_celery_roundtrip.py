"""A task goes through a real broker (Redis, then the filesystem transport) to a real worker; its result is read from the database."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection

from tests.integration.processes import celery_worker, redis_server

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _result_from_database(task_id: str, timeout_s: float = 30.0):
    from django_celery_results.models import TaskResult

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        row = TaskResult.objects.filter(task_id=task_id, status="SUCCESS").first()
        if row is not None:
            return row
        time.sleep(0.1)
    raise AssertionError(f"no result row for task {task_id} within {timeout_s} s")


def _send_echo(broker_url: str, payload: dict) -> str:
    from celery import Celery

    sender = Celery(broker=broker_url)
    if broker_url.startswith("filesystem://"):
        sender.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    return sender.send_task("workers.system.echo", args=(payload,), queue="default").id


def test_task_through_redis_result_in_database():
    with redis_server() as broker_url:
        with celery_worker(database_name=connection.settings_dict["NAME"], broker_url=broker_url,
                           data_dir=str(settings.DATA_DIR)):
            task_id = _send_echo(broker_url, {"hello": "redis"})
            row = _result_from_database(task_id)
    assert row.task_name == "workers.system.echo"
    assert '"hello": "redis"' in row.result


def test_task_through_filesystem_broker_result_in_database():
    broker_url = "filesystem://"
    with celery_worker(database_name=connection.settings_dict["NAME"], broker_url=broker_url,
                       data_dir=str(settings.DATA_DIR)):
        task_id = _send_echo(broker_url, {"hello": "filesystem"})
        row = _result_from_database(task_id)
    assert '"hello": "filesystem"' in row.result
