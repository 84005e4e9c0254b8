"""/health/'s timeout is parsed strictly: text and non-finite values are a 400 naming it; every check is bounded."""

from __future__ import annotations

import time

import pytest


@pytest.mark.parametrize("raw", ["abc", "nan", "NaN", "inf", "-inf", "-1", "0", "1e400x"])
def test_bad_timeout_is_a_400_naming_the_field(client, db, raw):
    response = client.get("/health/", {"timeout": raw})
    assert response.status_code == 400  # refused before any check runs
    assert list(response.json()["errors"]) == ["timeout"]


def test_large_timeout_is_clamped_and_the_answer_is_bounded(client, db):
    started = time.monotonic()
    response = client.get("/health/", {"timeout": "1e300"})
    assert response.status_code == 200
    assert time.monotonic() - started < 8  # the worker ping waits at most 5 s, the broker at most 2 s


def test_unreachable_broker_answers_within_its_bound(client, db, settings):
    from sandmle_web.celery import app

    old = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:9/0"  # the discard port: nothing listens
    try:
        started = time.monotonic()
        response = client.get("/health/", {"timeout": "0.2"})
    finally:
        app.conf.broker_url = old
    assert response.status_code == 503 and response.json()["checks"]["broker"]["ok"] is False
    assert time.monotonic() - started < 5
