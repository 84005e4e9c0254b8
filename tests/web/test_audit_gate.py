"""The audit gate holds (issue 49): under SANDMLE_REQUIRE_AUDIT a training run starts only on exactly the tasks a
complete audit passed, at their current content, on the scaffolds it attacked. Each way past it a hostile curator
tried is refused by the service, the REST API and the form, naming what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.audit.coverage import runnable_attacks
from tests.checkpoint_dirs import checkpoint_dir
from training_app.audits.models import TaskSetAudit
from training_app.runs.models import TrainingRun
from workers.audits import run_task_set_audit


@pytest.fixture(autouse=True)
def any_checkpoint(settings):
    return checkpoint_dir(settings.DATA_DIR)


@pytest.fixture
def one_task_set(users, approved_task_ids):
    """`gate-set` with one approved iris task; the other approved task stays out, to be added after the audit."""
    from tasks_app.task_sets import services as task_set_services

    approved = approved_task_ids
    assert len(approved) >= 2
    return task_set_services.task_set_create(name="gate-set", task_ids=approved[:1], user=users["curator"]), approved


def _audit(api_for, capture, **body) -> TaskSetAudit:
    with capture(execute=False):
        response = api_for("curator").post("/api/audits/", {"task_set": "gate-set", **body}, format="json")
    assert response.status_code == 201, response.json()
    assert run_task_set_audit(response.json()["id"]) is True
    audit = TaskSetAudit.objects.get(id=response.json()["id"])
    assert audit.state == "succeeded" and audit.passed is True, (audit.error, audit.summary)
    return audit


def _refusals(api_for, client_for, capture, **config) -> tuple[str, str]:
    """The API's and the form's refusal of a GRPO launch on gate-set (nothing is created by either)."""
    with capture(execute=False):
        api = api_for("curator").post("/api/training-runs/", {"task_set": "gate-set", "model": "models/any",
                                                              "steps": 1, **config}, format="json")
        form = client_for("curator").post("/training/", {"task_set": "gate-set", "kind": "grpo", "model": "models/any",
                                                         "steps": 1, **config})
    assert api.status_code == 400, api.json()
    assert form.status_code == 400
    assert not TrainingRun.objects.exists()
    return api.json()["task_set"][0], " ".join(form.context["form"].errors["task_set"])


def test_a_narrow_audit_opens_no_gate(one_task_set, api_for, client_for, settings,
                                      django_capture_on_commit_callbacks):
    settings.SANDMLE_REQUIRE_AUDIT = True
    audit = _audit(api_for, django_capture_on_commit_callbacks, scaffolds=["react"], attacks=["submission_bom"])
    detail = api_for("viewer").get(f"/api/audits/{audit.id}/").json()
    assert detail["passed"] is True and detail["partial"].startswith(f"partial: 1 of {len(runnable_attacks())} attacks")
    listing = api_for("viewer").get("/api/audits/").json()["results"][0]
    assert listing["partial"] == detail["partial"]
    page = client_for("viewer").get("/audits/").content.decode()
    assert 'class="audit-partial"' in page and "partial: 1 of" in page  # labelled where it is shown
    api, form = _refusals(api_for, client_for, django_capture_on_commit_callbacks)
    for refusal in (api, form):
        assert f"the last audit of task set gate-set (#{audit.id}) does not cover this run" in refusal
        assert "attack family escapes not run" in refusal and "SANDMLE_REQUIRE_AUDIT" in refusal
        assert "; and 3 more" in refusal  # seven families short of complete: the first four named, the rest counted


def test_a_complete_audit_vouches_for_exactly_its_tasks_scaffolds_and_bytes(
        one_task_set, api_for, client_for, settings, users, django_capture_on_commit_callbacks):
    from training_app.runs import services as training_services

    task_set, approved = one_task_set
    audit = _audit(api_for, django_capture_on_commit_callbacks, scaffolds=["react"])
    assert audit.partial_note == "partial: scaffolds react"  # every attack, one scaffold
    assert set(audit.coverage["attacks"]) == {attack.name for attack in runnable_attacks()}
    assert list(audit.coverage["tasks"]) == approved[:1]
    # What it covered opens the gate for a ReAct run on the dense reward.
    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model="models/any", steps=1,
                                                    user=users["curator"])
    assert run.audit_warning == ""
    run.delete()
    settings.SANDMLE_REQUIRE_AUDIT = True

    # Another scaffold was never attacked.
    api, form = _refusals(api_for, client_for, django_capture_on_commit_callbacks, scaffold="aide")
    assert "scaffold aide not audited" in api and "scaffold aide not audited" in form

    # A task added after the audit: the set's page and API say the audit is stale, and training is refused.
    added = api_for("curator").patch("/api/task-sets/gate-set/", {"add_task_ids": [approved[1]]}, format="json")
    assert added.status_code == 200, added.json()
    state = api_for("viewer").get("/api/task-sets/gate-set/").json()["audit"]
    assert state["id"] == audit.id and state["stale"] == [f"task {approved[1]} was added after the audit"]
    set_page = client_for("viewer").get("/task-sets/gate-set/").content.decode()
    assert f"task {approved[1]} was added after the audit" in set_page[set_page.index('id="audit-stale"'):]
    api, form = _refusals(api_for, client_for, django_capture_on_commit_callbacks)
    assert f"task {approved[1]} was added after the audit" in api and f"task {approved[1]} was added" in form
    removed = api_for("curator").patch("/api/task-sets/gate-set/", {"remove_task_ids": [approved[1]]}, format="json")
    assert removed.status_code == 200 and api_for("viewer").get("/api/task-sets/gate-set/").json()["audit"][
        "stale"] == []

    # A task whose files changed after the audit (an import over it, a hand edit): its digest no longer matches.
    task = task_set.tasks.get()
    grading_file = Path(task.bundle_dir) / "private" / "grading.json"
    original = grading_file.read_text()
    try:
        grading_file.write_text(json.dumps({**json.loads(original), "note": "edited after the audit"}))
        api, form = _refusals(api_for, client_for, django_capture_on_commit_callbacks)
        assert f"task {task.task_id} changed after the audit" in api and "changed after the audit" in form
    finally:
        grading_file.write_text(original)  # the session's bundles are shared by other tests
    with django_capture_on_commit_callbacks(execute=False):
        assert training_services.training_run_create(task_set=task_set, model="models/any", steps=1,
                                                     user=users["curator"]).audit_warning == ""


def test_a_sparse_audit_does_not_vouch_for_a_dense_run(one_task_set, api_for, client_for, settings,
                                                       django_capture_on_commit_callbacks):
    audit = _audit(api_for, django_capture_on_commit_callbacks, scaffolds=["react"], attacks=["submission_bom"],
                   reward_scheme="sparse")
    assert audit.reward_scheme == "sparse" and audit.coverage["reward"] == "sparse"
    settings.SANDMLE_REQUIRE_AUDIT = True
    api, _ = _refusals(api_for, client_for, django_capture_on_commit_callbacks)
    assert "judged degenerate solutions under the sparse reward" in api
    bad = api_for("curator").post("/api/audits/", {"task_set": "gate-set", "reward_scheme": "rubric"}, format="json")
    assert bad.status_code == 400 and "reward_scheme" in bad.json()
