"""Fuzz the REST API from its own OpenAPI schema with schemathesis, as each role: no 5xx, and every 4xx says why.

fuzz_role and known_path_values are shared with bench/faults_input.py, so the test and the figure fuzz alike.
"""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.services import user_token

ROLES = ("viewer", "curator", "reviewer")
# Per operation and role; about 57 operations x 3 roles x this stays above the 500 cases issue 11 asks for.
EXAMPLES_PER_OPERATION = 4
MIN_TOTAL_CASES = 500


def known_path_values(finished_batch, stored_tasks) -> dict[str, list]:
    """Real ids per path parameter name, so a share of the cases reach rows that exist instead of only 404s."""
    from tasks_app.models import Seed, SynthesisRun

    task = stored_tasks[0]
    trajectory = finished_batch.trajectories.order_by("id").first()
    files = [entry.get("path") for entry in (task.files if isinstance(getattr(task, "files", None), list) else [])]
    return {
        "task_id": [t.task_id for t in stored_tasks],
        "batch_id": [finished_batch.id],
        "trajectory_id": [trajectory.id] if trajectory else [1],
        "name": [Seed.objects.first().name, finished_batch.task_set.name],
        "run_id": [SynthesisRun.objects.first().id],
        "path": [p for p in files if p] or ["description.md", "data/train.csv"],
    }


def _says_what_was_wrong(body) -> bool:
    """A DRF error: {"detail": "..."}, field errors {"field": ["..."]}, or a non-empty list of messages."""
    if isinstance(body, dict):
        return bool(body) and all(value not in ("", None, [], {}) for value in body.values())
    if isinstance(body, list):
        return bool(body) and all(isinstance(item, (str, dict)) and item for item in body)
    return isinstance(body, str) and bool(body.strip())


def fuzz_role(schema, app, role, user, known, failures, answered) -> int:
    cases = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        names = [parameter.name for parameter in operation.path_parameters]

        @settings(max_examples=EXAMPLES_PER_OPERATION, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck), phases=["explicit", "generate"])
        @given(case=operation.as_strategy(), use_known=st.booleans(), pick=st.integers(min_value=0, max_value=5))
        def fuzz(case, use_known, pick):
            nonlocal cases
            if use_known and names:
                case.path_parameters = {**case.path_parameters, **{
                    name: known[name][pick % len(known[name])] for name in names if name in known}}
            # Looked up per case: a fuzzed DELETE /api/token/ revokes the token, and later cases need a fresh one.
            headers = {"Authorization": f"Token {user_token(user=user)}"}
            response = case.call(app=app, headers=headers)
            cases += 1
            if response.status_code < 300:
                answered[role] = answered.get(role, 0) + 1
            where = f"{role} {operation.method.upper()} {case.formatted_path} -> {response.status_code}"
            if response.status_code >= 500:
                failures.append(f"{where}: {response.text[:300]}")
            elif response.status_code >= 400:
                try:
                    body = json.loads(response.text)
                except ValueError:
                    failures.append(f"{where}: not JSON: {response.text[:200]!r}")
                    return
                if not _says_what_was_wrong(body):
                    failures.append(f"{where}: says nothing: {response.text[:200]!r}")

        fuzz()
    return cases


@pytest.mark.django_db
def test_fuzzing_every_operation_as_each_role_finds_no_server_error_and_every_4xx_explains(
        users, api_for, finished_batch, stored_tasks, django_capture_on_commit_callbacks):
    raw = api_for("viewer").get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    schema = schemathesis.openapi.from_dict(raw)
    app = get_wsgi_application()
    known = known_path_values(finished_batch, stored_tasks)
    failures: list[str] = []
    per_role, answered = {}, {}
    # The real WSGI handler closes the connection after each request; the test's transaction lives on that
    # connection, so (as Django's own test client does) keep it open for the fuzz.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        # Jobs the fuzz launches are enqueued on commit; the test's transaction never commits, so no broker is needed.
        with django_capture_on_commit_callbacks(execute=False):
            for role in ROLES:
                per_role[role] = fuzz_role(schema, app, role, users[role], known, failures, answered)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    total = sum(per_role.values())
    print(f"fuzz cases: {total} ({', '.join(f'{role}={n}' for role, n in per_role.items())}); 2xx: {answered}")
    assert total >= MIN_TOTAL_CASES, per_role
    # The known ids make the fuzz reach real rows: each role gets real answers, not only refusals.
    assert all(answered.get(role, 0) >= 20 for role in ROLES), answered
    assert not failures, f"{len(failures)} of {total} cases failed:\n" + "\n".join(failures[:40])


def test_an_unrouted_api_url_answers_a_json_404_and_a_page_url_html(api_for, client_for):
    """What the fuzz found: <int:> and <slug:> routes miss a negative id or an odd name, and Django's HTML 404 answered."""
    for url in ("/api/no-such-endpoint/", "/api/trajectories/-1/", "/api/seeds/%C3%B9/"):
        response = api_for("viewer").get(url)
        assert response.status_code == 404 and response.json()["detail"], url
    page = client_for("viewer").get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
