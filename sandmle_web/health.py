"""The health endpoint: database, broker and worker reachability, as JSON, each check bounded in time."""

from __future__ import annotations

import math
import time

from django.db import connection
from django.http import JsonResponse

from sandmle_web.celery import app

MAX_TIMEOUT_S = 5.0
BROKER_TIMEOUT_S = 2.0


def _check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return {"ok": True, "vendor": connection.vendor}
    except Exception as error:  # any failure is the answer, not a crash
        return {"ok": False, "error": str(error)}


def _check_broker() -> dict:
    try:
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_S, interval_start=0, interval_max=0.2)
            return {"ok": True, "transport": broker.transport_cls}
    except Exception as error:
        return {"ok": False, "error": str(error)}


def _check_workers(timeout_s: float) -> dict:
    try:
        replies = app.control.ping(timeout=timeout_s) or []
    except Exception as error:
        return {"ok": False, "workers": [], "error": str(error)}
    names = sorted(name for reply in replies for name in reply)
    return {"ok": bool(names), "workers": names}


def parse_timeout(raw: str | None) -> float:
    """The worker-ping timeout in seconds: a finite number in (0, 5]; anything else is a ValueError naming it."""
    if raw is None or raw == "":
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"expected seconds as a number, got {raw[:40]!r}") from None
    # kombu's drain loop compares against the deadline: NaN never compares true and never returns.
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"expected a finite number of seconds above 0, got {raw[:40]!r}")
    return min(value, MAX_TIMEOUT_S)


def health(request):
    started = time.monotonic()
    try:
        timeout_s = parse_timeout(request.GET.get("timeout"))
    except ValueError as error:
        return JsonResponse({"ok": False, "errors": {"timeout": [str(error)]}}, status=400)
    checks = {"database": _check_database(), "broker": _check_broker()}
    checks["workers"] = _check_workers(timeout_s) if checks["broker"]["ok"] else {"ok": False, "workers": []}
    ok = checks["database"]["ok"] and checks["broker"]["ok"]
    body = {"ok": ok, "checks": checks, "elapsed_ms": round((time.monotonic() - started) * 1000, 1)}
    return JsonResponse(body, status=200 if ok else 503)
