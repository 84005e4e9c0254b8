"""Canaries planted in a task's answers, its hidden rule and the LLM API key never reach a viewer's output, an export,
a log line or an error page; the reviewer does see the rule, which proves the canary was planted."""

from __future__ import annotations

import csv
import io
import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import include, path

ANSWER_CANARY = "canary-answer-5d1c9e"
RULE_CANARY = "canary-rule-a83f20"
KEY_CANARY = "sk-canary-key-77e1b4"
CANARIES = (ANSWER_CANARY, RULE_CANARY, KEY_CANARY)


def _boom(request):
    # A view that fails while holding secrets in its locals: the DEBUG=True page would show them; production must not.
    secret_rule, secret_key = RULE_CANARY, KEY_CANARY  # noqa: F841 (read by the debug page, which must stay off)
    raise RuntimeError("a failure whose message names no secret")


# This module is the URLconf of the error-page test: the studio's URLs plus one view that raises.
urlpatterns = [path("canary-boom/", _boom), path("", include("sandmle_web.urls"))]


def _leaked(text: str) -> list[str]:
    return [canary for canary in CANARIES if canary in text]


def _plant(task, where: Path):
    """Copy the task's bundle and plant the canaries: an answers column, the rule's text and the rule stage of the log."""
    copy = where / task.task_id
    shutil.copytree(task.bundle_dir, copy)
    answers = copy / "private" / "answers.csv"
    rows = list(csv.reader(io.StringIO(answers.read_text())))
    # An extra column keeps the grader's id and target columns valid, so the rollout still grades.
    rows = [rows[0] + ["note"]] + [row + [ANSWER_CANARY] for row in rows[1:]]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    answers.write_text(out.getvalue())
    rule_path = copy / "private" / "rule.json"
    rule = json.loads(rule_path.read_text())
    rule["description"] = f"{RULE_CANARY}: {rule.get('description', '')}"
    rule_path.write_text(json.dumps(rule))
    task.bundle_dir = str(copy)
    task.log = list(task.log or []) + [{"stage": "rule", "message": f"hidden rule {RULE_CANARY}"}]
    task.save(update_fields=["bundle_dir", "log"])
    return task


@pytest.fixture
def planted(users, stored_tasks, tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    """A planted, approved task, a task set of it and a finished rollout batch over it; the key canary in the env."""
    from tasks_app.review import services as review_services
    from tasks_app.task_sets import services as task_set_services
    from training_app.rollouts import services

    monkeypatch.setenv(django_settings.SANDMLE_LLM_KEY_ENV, KEY_CANARY)
    task = _plant(stored_tasks[0], tmp_path)
    if task.status == "pending_review":
        task = review_services.task_approve(task=task, user=users["reviewer"])
    task_set = task_set_services.task_set_create(name="canary-set", task_ids=[task.task_id], user=users["curator"])
    with django_capture_on_commit_callbacks(execute=False):
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=1,
                                              user=users["curator"])
    assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    return task, batch


def test_the_reviewer_sees_the_planted_rule_and_answers(client_for, planted):
    task, _ = planted
    page = client_for("reviewer").get(f"/tasks/{task.task_id}/").content.decode()
    assert RULE_CANARY in page


def test_viewer_pages_api_and_exports_carry_no_canary(client_for, api_for, planted, caplog):
    task, batch = planted
    viewer, api = client_for("viewer"), api_for("viewer")
    caplog.set_level(logging.DEBUG)
    outputs = {}
    for url in (f"/tasks/{task.task_id}/", "/tasks/", f"/rollouts/{batch.id}/", "/rollouts/", "/synthesis/",
                "/seeds/iris/", "/"):
        outputs[url] = viewer.get(url).content.decode()
    export = viewer.get(f"/rollouts/{batch.id}/trajectories.jsonl")
    assert export.status_code == 200
    outputs["trajectories.jsonl"] = b"".join(export.streaming_content).decode()
    assert outputs["trajectories.jsonl"].strip(), "the export holds no trajectory"
    trajectory_ids = list(batch.trajectories.values_list("id", flat=True))
    assert trajectory_ids
    for trajectory_id in trajectory_ids:
        outputs[f"/trajectories/{trajectory_id}/"] = viewer.get(f"/trajectories/{trajectory_id}/").content.decode()
        outputs[f"/api/trajectories/{trajectory_id}/"] = api.get(f"/api/trajectories/{trajectory_id}/").content.decode()
    for url in (f"/api/tasks/{task.task_id}/", f"/api/tasks/{task.task_id}/files/", f"/api/tasks/{task.task_id}/dna/",
                f"/api/rollout-batches/{batch.id}/trajectories/", "/api/trajectories/", "/api/tasks/"):
        outputs[url] = api.get(url).content.decode()
    listed = json.loads(outputs[f"/api/tasks/{task.task_id}/files/"])
    files = listed if isinstance(listed, list) else listed.get("files", listed.get("results", []))
    assert len(files) >= 2, listed
    for entry in files:
        name = entry if isinstance(entry, str) else entry.get("path", "")
        response = api.get(f"/api/tasks/{task.task_id}/files/{name}")
        outputs[f"file {name}"] = b"".join(response.streaming_content).decode(errors="replace") \
            if response.streaming else response.content.decode(errors="replace")
    assert sum(1 for where in outputs if where.startswith("file ")) == len(files)
    outputs["log"] = caplog.text  # formatted records, tracebacks included
    leaks = {where: _leaked(text) for where, text in outputs.items() if _leaked(text)}
    assert not leaks, leaks


def test_mlebench_export_keeps_answers_in_the_private_folder(planted, tmp_path):
    task, _ = planted
    out = tmp_path / "export"
    done = subprocess.run([sys.executable, "-m", "sandmle.cli", "export", "--format", "mlebench", "--out", str(out),
                           task.bundle_dir], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not _leaked(done.stdout + done.stderr)
    public, private = [], []
    for file in out.rglob("*"):
        if file.is_file():
            (private if "private" in file.relative_to(out).parts else public).append(file)
    assert public and private, (public, private)
    leaks = {str(file.relative_to(out)): _leaked(file.read_text(errors="replace")) for file in public}
    assert not any(leaks.values()), leaks
    assert any(ANSWER_CANARY in file.read_text(errors="replace") for file in private), "the answers were not exported"


@pytest.mark.urls(__name__)
def test_production_404_and_500_pages_show_no_secret(users, settings, planted, caplog):
    settings.DEBUG = False
    caplog.set_level(logging.DEBUG)
    client = Client(raise_request_exception=False)
    client.force_login(users["viewer"])
    missing = client.get("/tasks/no-such-task/")
    failed = client.get("/canary-boom/")
    assert missing.status_code == 404 and failed.status_code == 500
    for response in (missing, failed):
        assert not _leaked(response.content.decode())
        assert b"Traceback" not in response.content and b"secret_rule" not in response.content
    assert "Internal Server Error" in caplog.text and not _leaked(caplog.text)
