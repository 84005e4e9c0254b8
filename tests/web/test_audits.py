"""Task-set audits in the studio: launched from the API with field-level refusals, run by the worker's task function
on the real engine, resumed without replaying judged cases, shown on the set and task pages with failing cases and
their evidence (reviewers only), and the warning or refusal a GRPO launch on an unaudited or failed set meets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.agents.scaffolds import react
from sandmle_web.errors import ServiceError
from tests.checkpoint_dirs import checkpoint_dir
from training_app.audits import services
from training_app.audits.models import AuditVerdict, TaskSetAudit
from training_app.runs import services as training_services
from workers.audits import run_task_set_audit

ATTACKS = ["submission_bom", "submission_duplicate_ids"]


@pytest.fixture(autouse=True)
def any_checkpoint(settings):
    """models/any, a checkpoint-shaped folder under the model roots: the GRPO launches below need one to pass."""
    return checkpoint_dir(settings.DATA_DIR)


def _launch(api_for, the_set, **change) -> dict:
    body = {"task_set": the_set.name, "scaffolds": ["react"], "attacks": ATTACKS, **change}
    return api_for("curator").post("/api/audits/", body, format="json")


@pytest.mark.parametrize("change, field", [
    ({"scaffolds": ["nope"]}, "scaffolds"), ({"scaffolds": []}, "scaffolds"), ({"attacks": ["nope"]}, "attacks"),
    ({"task_set": "missing-set"}, "task_set"), ({"attacks": ["judge_injection"]}, "attacks"),
])
def test_bad_launches_are_400_with_the_field(api_for, task_set, change, field, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = _launch(api_for, task_set, **change)
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not TaskSetAudit.objects.exists()


def test_viewers_cannot_launch(api_for, task_set):
    assert api_for("viewer").post("/api/audits/", {"task_set": task_set.name}, format="json").status_code == 403


def test_an_audit_runs_resumes_and_shows_on_the_set_and_task_pages(api_for, task_set, client_for, users,
                                                                   django_capture_on_commit_callbacks, settings):
    with django_capture_on_commit_callbacks(execute=False):
        launched = _launch(api_for, task_set)
    assert launched.status_code == 201, launched.json()
    audit = TaskSetAudit.objects.get(id=launched.json()["id"])
    assert audit.planned == 2 * len(ATTACKS) and audit.queue == "sandbox"
    # A case judged before the worker died is never played again.
    first_task = sorted(task.task_id for task in task_set.tasks.all())[0]
    AuditVerdict.objects.create(audit=audit, task_id=first_task, scaffold="react", attack="submission_bom",
                                family="submissions", passed=True, problems=[], record={"kept": "from before"})
    assert run_task_set_audit(audit.id) is True
    audit.refresh_from_db()
    assert audit.state == "succeeded" and audit.passed is True, (audit.error, audit.summary)
    assert audit.verdicts.count() == audit.planned
    assert audit.verdicts.get(task_id=first_task, attack="submission_bom").record == {"kept": "from before"}
    detail = api_for("viewer").get(f"/api/audits/{audit.id}/").json()
    assert detail["passed"] and len(detail["verdicts"]) == 4 and detail["degenerate_scores"]
    assert not any(score["medal"] for score in detail["degenerate_scores"])

    page = client_for("viewer").get("/task-sets/").content.decode()
    assert f"#{audit.id}" in page and "passed" in page and "4/4 contained" in page
    set_page = client_for("viewer").get(f"/task-sets/{task_set.name}/").content.decode()
    panel = set_page[set_page.index('id="set-audit"'):]
    assert f"#{audit.id}" in panel and "passed" in panel and "4/4 contained" in panel  # the set's page shows it too
    task_page = client_for("viewer").get(f"/tasks/{first_task}/").content.decode()
    assert 'id="degenerate-scores"' in task_page and "sample_submission" in task_page
    assert "ids_as_feature" in task_page
    # Passed, but two attacks are a quick look: a run on the set is warned of what the audit did not cover.
    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model="models/any", steps=1, user=users["curator"])
    assert run.audit_warning.startswith(f"the last audit of task set web-set (#{audit.id}) does not cover this run: "
                                        "attack family escapes not run")


def leaky_react(context):
    """A react variant with a hole: no link sweep, and it copies the submission through its link after each step."""
    context.files.sweep_links = lambda: []
    run_code = context.run_code

    def normalising_run_code(code, kind="python"):
        turn = run_code(code, kind=kind)
        submission = Path(context.workdir) / "submission.csv"
        if submission.is_symlink():
            try:
                data = submission.read_bytes()
            except OSError:
                return turn
            submission.unlink()
            submission.write_bytes(data)
        return turn

    context.run_code = normalising_run_code
    return react.run(context)


def test_a_failed_audit_shows_its_cases_and_gates_training(api_for, task_set, client_for, users, monkeypatch,
                                                           django_capture_on_commit_callbacks, settings):
    import sandmle.episodes.runner

    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model="models/any", steps=1, user=users["curator"])
    assert run.audit_warning == "task set web-set was never audited for reward hacks"

    real = sandmle.episodes.runner.get_scaffold
    monkeypatch.setattr(sandmle.episodes.runner, "get_scaffold",
                        lambda name: leaky_react if name == "react" else real(name))
    with django_capture_on_commit_callbacks(execute=False):
        audit = services.audit_create(task_set=task_set, scaffolds=["react"], attacks=["links_submission"],
                                      user=users["curator"])
    assert run_task_set_audit(audit.id) is True
    audit.refresh_from_db()
    assert audit.state == "succeeded" and audit.passed is False and audit.summary["failing"] == 2
    failing = audit.verdicts.filter(passed=False).first()
    assert any("read private data" in problem for problem in failing.problems)

    page = client_for("viewer").get("/task-sets/").content.decode()
    assert "failed" in page and "links_submission" in page and "read private data" in page
    assert f"/audits/{audit.id}/evidence/" not in page  # the evidence may hold the answers: reviewers only
    set_page = client_for("viewer").get(f"/task-sets/{task_set.name}/").content.decode()
    assert "failed" in set_page and "links_submission" in set_page and f"/audits/{audit.id}/evidence/" not in set_page
    reviewer_page = client_for("reviewer").get("/task-sets/").content.decode()
    assert f"/audits/{audit.id}/evidence/{failing.id}.json" in reviewer_page
    evidence = client_for("reviewer").get(f"/audits/{audit.id}/evidence/{failing.id}.json")
    assert evidence.status_code == 200
    assert "AUDIT-FOUND" in json.dumps(json.loads(b"".join(evidence.streaming_content))["trajectory"])
    assert client_for("viewer").get(f"/audits/{audit.id}/evidence/{failing.id}.json").status_code == 403

    with django_capture_on_commit_callbacks(execute=False):
        warned = training_services.training_run_create(task_set=task_set, model="models/any", steps=1,
                                                       user=users["curator"])
    assert warned.audit_warning.startswith(f"the last audit of task set web-set (#{audit.id}) failed: 2 failing")
    settings.SANDMLE_REQUIRE_AUDIT = True
    with pytest.raises(ServiceError) as refused:
        training_services.training_run_create(task_set=task_set, model="models/any", steps=1, user=users["curator"])
    assert refused.value.field == "task_set" and "SANDMLE_REQUIRE_AUDIT" in str(refused.value)
    body = {"task_set": task_set.name, "kind": "grpo", "model": "models/any", "steps": 1}
    response = api_for("curator").post("/api/training-runs/", body, format="json")
    assert response.status_code == 400 and "SANDMLE_REQUIRE_AUDIT" in response.json()["task_set"][0]


def test_a_queued_audit_is_cancelled_at_once(api_for, task_set, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        audit_id = _launch(api_for, task_set).json()["id"]
    response = api_for("curator").post(f"/api/audits/{audit_id}/cancel/")
    assert response.status_code == 200 and response.json()["state"] == "cancelled"
    assert run_task_set_audit(audit_id) is False
