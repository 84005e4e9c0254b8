"""Which job queues a live worker consumes, asked of the workers through Celery's inspect and cached briefly, so that
a page showing a queued job can say when nothing will ever take it (instead of a silent "queued 0%").

One inspect per process every WORKER_CHECK_TTL_S at most: a page never waits on it more than once in that time. With
the broker unreachable the answer is None (the broker banner speaks then); with the filesystem transport, which has
no broadcast, it is None too: nothing is known, so nothing is claimed.
"""

from __future__ import annotations

import threading
import time

from sandmle_web.broker import broker_reachable
from sandmle_web.celery import app
from sandmle_web.queues import Queue

WORKER_CHECK_TTL_S = 15.0
INSPECT_TIMEOUT_S = 0.5

_lock = threading.Lock()
_last: dict = {"at": float("-inf"), "queues": None}


def _ask_workers() -> frozenset[str] | None:
    if not broker_reachable() or app.conf.broker_url.startswith("filesystem://"):
        return None
    try:
        replies = app.control.inspect(timeout=INSPECT_TIMEOUT_S).active_queues() or {}
    except Exception:  # a broker that fails mid-question: nothing known
        return None
    return frozenset(queue["name"] for queues in replies.values() for queue in queues or [])


def consumed_queues() -> frozenset[str] | None:
    """The names of the queues some live worker consumes; None when that cannot be known now."""
    with _lock:
        if time.monotonic() - _last["at"] < WORKER_CHECK_TTL_S:
            return _last["queues"]
    queues = _ask_workers()
    with _lock:
        _last.update(at=time.monotonic(), queues=queues)
    return queues


def unserved_queues() -> list[str]:
    """The studio's queues that no live worker consumes ([] when unknown)."""
    consumed = consumed_queues()
    return [] if consumed is None else [queue.value for queue in Queue if queue.value not in consumed]


def forget() -> None:
    """Drop the cached answer (tests, and a page that just started a worker)."""
    with _lock:
        _last.update(at=float("-inf"), queues=None)
