"""Shared test setup: one named user per role (after Healthchecks' BaseTestCase) and environment for live tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The local chat-completions server and its fixtures (chat_server, chat_client), for every test that needs an endpoint;
# one vLLM server on a tiny Qwen3 (vllm_server) for the tests of served models.
pytest_plugins = ("tests.chat_server", "tests.vllm_server")

# Playwright's sync API keeps an event loop running in the test thread; Django must allow ORM calls there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def plain_http(settings):
    """Tests talk plain HTTP to the test client and the live server; production redirects to HTTPS."""
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False


@pytest.fixture(autouse=True)
def audit_gate_warns(settings):
    """The audit gate refuses training on unaudited sets by default; the suite's many training tests build small
    unaudited sets, so here it warns. The gate's own tests set SANDMLE_REQUIRE_AUDIT = True, and the demo script's
    test runs with the deployed default (tests/integration/test_demo_script.py)."""
    settings.SANDMLE_REQUIRE_AUDIT = False


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Every test builds users; production's PBKDF2 costs about a second per user on two busy cores."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def users(db):
    """viewer, curator, reviewer and admin users, each holding only its role; password is 'pw-<name>'."""
    from accounts.roles import Role
    from accounts.services import user_create

    return {
        role.group_name: user_create(username=role.group_name, password=f"pw-{role.group_name}", role=role)
        for role in Role
    }


@pytest.fixture
def client_for(client, users):
    """A Django test client logged in as the named role."""

    def login(role: str):
        client.force_login(users[role])
        return client

    return login


@pytest.fixture
def api_for(users):
    """A DRF API client authenticated by the named role's token."""
    from rest_framework.test import APIClient

    from accounts.services import user_token

    def make(role: str) -> APIClient:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=users[role])}")
        return api

    return make


@pytest.fixture(scope="session")
def iris_results(tmp_path_factory):
    """Two synthesized iris tasks (engine results), built once for the whole session."""
    from sandmle.seeds.load import load_bundled_seed
    from sandmle.synth import synthesize

    out_dir = Path(tmp_path_factory.mktemp("bundles"))
    return synthesize(load_bundled_seed("iris"), count=2, rng=11, out_dir=out_dir)


@pytest.fixture
def stored_tasks(db, users, iris_results):
    """The session's iris tasks stored as rows of a finished synthesis run."""
    from sandmle_web.jobs import JobState
    from tasks_app.models import Seed, SynthesisRun
    from tasks_app.seeds import services as seed_services
    from tasks_app.synthesis import services as synthesis_services

    seed_services.seeds_load_bundled()
    run = SynthesisRun.objects.create(seed=Seed.objects.get(name="iris"), count=2, state=JobState.SUCCEEDED)
    return [synthesis_services.synthesized_task_store(run=run, result=result) for result in iris_results]


@pytest.fixture
def approved_task_ids(users, stored_tasks) -> list[str]:
    """The stored iris tasks the critic passed, approved by the reviewer; their ids in order."""
    from tasks_app.review import services as review_services

    return sorted(review_services.task_approve(task=task, user=users["reviewer"]).task_id
                  for task in stored_tasks if task.status == "pending_review")


@pytest.fixture
def task_set(users, approved_task_ids):
    """The approved iris tasks as the task set `web-set`."""
    from tasks_app.task_sets import services as task_set_services

    return task_set_services.task_set_create(name="web-set", task_ids=approved_task_ids, user=users["curator"])


@pytest.fixture
def finished_batch(users, task_set, django_capture_on_commit_callbacks):
    """A batch run in-process by the real engine (baseline policy, ReAct) and stored as a worker would."""
    from training_app.rollouts import services

    with django_capture_on_commit_callbacks(execute=False):
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=2,
                                              user=users["curator"])
    assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    return batch
