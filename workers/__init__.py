"""Celery tasks: each takes a row id, claims it, calls a service, and writes results by id.

`held_job` wraps each job task: it beats the row's heartbeat from a thread while the service works, and names the
claim after this worker process, so a row left by a killed worker can be told from one still being worked on.
"""

from __future__ import annotations

import os
import socket
from contextlib import contextmanager


def worker_name() -> str:
    """host/pid of this worker process, the holder a claim records (two children of one host differ)."""
    return f"{socket.gethostname()}/{os.getpid()}"


@contextmanager
def held_job(model, job_id: int):
    with model.heartbeat(job_id):
        yield worker_name()
