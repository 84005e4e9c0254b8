#!/usr/bin/env python3
"""Bad input figures for issue 11: the schemathesis fuzz of the REST API as each role and the catalogue of bad seed
uploads, run against a fresh SQLite database through the real WSGI app.

run() returns fuzz_cases, server_errors, unexplained_4xx, bad_uploads_tried and bad_uploads_refused, and from
bench/faults_imports.py hostile_imports_tried/refused and the latency upload's peak_mb_per_upload_mb (beside the
whole-table read's); as a script it prints them as RESULT lines (targets: fuzz_cases >= 500, server_errors = 0,
bad_uploads_refused = bad_uploads_tried, hostile_imports_refused = hostile_imports_tried, peak_mb_per_upload_mb <= 2)."""

from __future__ import annotations

import atexit
import io
import logging
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["SANDMLE_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-faults-input-")
atexit.register(shutil.rmtree, os.environ["SANDMLE_DATA_DIR"], ignore_errors=True)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sandmle_web.settings")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
# Production mode, as users meet it: DEBUG off (the JSON 404 under /api/, no debug pages), a throwaway key.
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + secrets.token_urlsafe(48))
os.environ.setdefault("OMP_NUM_THREADS", "1")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402


def _studio() -> dict:
    """Users per role, the bundled seeds, two synthesized iris tasks, a task set and a finished rollout batch."""
    from accounts.roles import Role
    from accounts.services import user_create
    from sandmle.seeds.load import load_bundled_seed
    from sandmle.synth import synthesize
    from sandmle_web.jobs import JobState
    from tasks_app.models import Seed, SynthesisRun
    from tasks_app.review import services as review_services
    from tasks_app.seeds import services as seed_services
    from tasks_app.synthesis import services as synthesis_services
    from tasks_app.task_sets import services as task_set_services
    from training_app.rollouts import services

    users = {role.group_name: user_create(username=role.group_name, password=f"pw-{role.group_name}", role=role)
             for role in Role}
    seed_services.seeds_load_bundled()
    run = SynthesisRun.objects.create(seed=Seed.objects.get(name="iris"), count=2, state=JobState.SUCCEEDED)
    results = synthesize(load_bundled_seed("iris"), count=2, rng=11, out_dir=Path(os.environ["SANDMLE_DATA_DIR"]) / "bench-bundles")
    tasks = [synthesis_services.synthesized_task_store(run=run, result=result) for result in results]
    approved = [review_services.task_approve(task=task, user=users["reviewer"]).task_id
                for task in tasks if task.status == "pending_review"]
    task_set = task_set_services.task_set_create(name="bench-set", task_ids=approved, user=users["curator"])
    batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=2,
                                          user=users["curator"])
    services.rollout_batch_execute(batch_id=batch.id, worker="bench")
    batch.refresh_from_db()
    return {"users": users, "tasks": tasks, "batch": batch}


def _fuzz(studio: dict) -> dict:
    import schemathesis
    from django.core.wsgi import get_wsgi_application
    from rest_framework.test import APIClient

    from accounts.services import user_token
    from tests.web.test_api_fuzz import ROLES, fuzz_role, known_path_values

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=studio['users']['viewer'])}")
    schema = schemathesis.openapi.from_dict(
        api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json())
    app, known = get_wsgi_application(), known_path_values(studio["batch"], studio["tasks"])
    # After get_wsgi_application (it configures logging again): every refused request is counted here, and their
    # per-request 4xx warnings would bury the RESULT lines. A server error still logs.
    logging.getLogger("django.request").setLevel(logging.ERROR)
    failures: list[str] = []
    cases = sum(fuzz_role(schema, app, role, studio["users"][role], known, failures, {}) for role in ROLES)
    return {"fuzz_cases": cases, "server_errors": sum(" -> 5" in failure for failure in failures),
            "unexplained_4xx": sum(" -> 4" in failure for failure in failures)}


def _bad_uploads(studio: dict) -> dict:
    from rest_framework.test import APIClient

    from accounts.services import user_token
    from tasks_app.models import Seed
    from tests.bad_uploads import bad_uploads

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=studio['users']['curator'])}")
    tried = refused = 0
    for case in bad_uploads():
        tried += 1
        response = api.post("/api/seeds/", {"name": "bad-seed", "file": io.BytesIO(case.content),
                                            "target": case.target}, format="multipart")
        body = response.json() if response.status_code == 400 else {}
        # Refused means: a 400, the message on the expected field holding the expected words, and no row left.
        if (case.field in body and case.words in " ".join(body[case.field]).lower()
                and not Seed.objects.filter(name="bad-seed").exists()):
            refused += 1
    return {"bad_uploads_tried": tried, "bad_uploads_refused": refused}


def run() -> dict:
    from bench.faults_imports import hostile_imports, latency_upload_memory

    call_command("migrate", verbosity=0)
    studio = _studio()
    return {**_fuzz(studio), **_bad_uploads(studio), **hostile_imports(), **latency_upload_memory()}


if __name__ == "__main__":
    for name, value in run().items():
        print(f"RESULT {name}={value}")
