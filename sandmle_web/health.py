"""The health endpoint: database, broker and worker reachability, as JSON."""

from __future__ import annotations

import time

from django.db import connection
from django.http import JsonResponse

from sandmle_web.celery import app


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
            broker.ensure_connection(max_retries=1, timeout=2)
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


def health(request):
    started = time.monotonic()
    timeout_s = min(float(request.GET.get("timeout", 1.0) or 1.0), 5.0)
    checks = {"database": _check_database(), "broker": _check_broker()}
    checks["workers"] = _check_workers(timeout_s) if checks["broker"]["ok"] else {"ok": False, "workers": []}
    ok = checks["database"]["ok"] and checks["broker"]["ok"]
    body = {"ok": ok, "checks": checks, "elapsed_ms": round((time.monotonic() - started) * 1000, 1)}
    return JsonResponse(body, status=200 if ok else 503)
