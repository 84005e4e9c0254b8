"""Tells every signed-in page whether the job queue (the Celery broker) is reachable, for the banner in base.html.

Launching a job only saves its row and sends a message after the commit (sandmle_web.dispatch); with the broker down
the row waits and the lost-job sweep sends it later, so pages say so instead of failing. The check is cached for a
few seconds per process: a page costs one broker probe at most every BROKER_CHECK_TTL_S.
"""

from __future__ import annotations

import threading
import time

from sandmle_web.celery import app

BROKER_CHECK_TTL_S = 5.0
BROKER_TIMEOUT_S = 1.0
QUEUE_DOWN_MESSAGE = "The job queue is unreachable; your job is saved and will start when it is back."

_lock = threading.Lock()
_last: dict = {"at": float("-inf"), "ok": True}


def broker_reachable() -> bool:
    with _lock:
        if time.monotonic() - _last["at"] < BROKER_CHECK_TTL_S:
            return _last["ok"]
    try:
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_S, interval_start=0, interval_max=0.2)
        ok = True
    except Exception:  # any failure to reach it is the answer, not an error page
        ok = False
    with _lock:
        _last.update(at=time.monotonic(), ok=ok)
    return ok


def job_queue(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"job_queue_down": not broker_reachable(), "job_queue_down_message": QUEUE_DOWN_MESSAGE}
