"""A task whose median tier random predictions reach fails the studio's audit: the page names the solution and the
dense reward it earns, counts cases per attack family x scaffold above the verdicts, and GRPO on the set then warns,
or is refused under SANDMLE_REQUIRE_AUDIT, as after any failed audit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sandmle_web.errors import ServiceError
from tests.checkpoint_dirs import checkpoint_dir
from training_app.audits import services
from training_app.runs import services as training_services
from workers.audits import run_task_set_audit


@pytest.fixture(autouse=True)
def any_checkpoint(settings):
    return checkpoint_dir(settings.DATA_DIR)


def _audit(task_set, users, capture):
    with capture(execute=False):
        audit = services.audit_create(task_set=task_set, scaffolds=["react"], attacks=["submission_bom"],
                                      user=users["curator"])
    assert run_task_set_audit(audit.id) is True
    audit.refresh_from_db()
    return audit


def _median_below_random(task, tmp_path: Path) -> None:
    """The task's bundle copied (the session's bundles are shared) with its median moved below random predictions."""
    copy = shutil.copytree(task.bundle_dir, tmp_path / "bundles" / task.task_id, symlinks=True)
    grading_file = copy / "private" / "grading.json"
    spec = json.loads(grading_file.read_text())
    spec["milestones"]["median"] = 0.3
    grading_file.write_text(json.dumps(spec))
    task.bundle_dir = str(copy)
    task.save(update_fields=["bundle_dir"])


def test_a_paid_degenerate_solution_fails_the_audit_and_gates_grpo(task_set, users, client_for, api_for, tmp_path,
                                                                   django_capture_on_commit_callbacks, settings):
    task = sorted(task_set.tasks.all(), key=lambda row: row.task_id)[0]
    _median_below_random(task, tmp_path)
    audit = _audit(task_set, users, django_capture_on_commit_callbacks)
    assert audit.state == "succeeded" and audit.passed is False and audit.summary["failing"] == 0
    assert {entry["task_id"] for entry in audit.summary["broken_tasks"]} == {task.task_id}
    random = next(entry for entry in audit.summary["broken_tasks"] if entry["solution"] == "random")
    assert random["milestone"] == "median" and random["scheme"] == "dense" and random["paid"] == pytest.approx(0.1)
    assert audit.summary["verdict"].startswith("failed · 1 task pays a degenerate solution: ")
    assert "random earns the median tier (dense +0.1)" in audit.summary["verdict"]

    page = client_for("viewer").get(f"/audits/{audit.id}/").content.decode()
    assert "failed · 1 task pays a degenerate solution" in page and "random earns the median tier" in page
    table = page[page.index('id="audit-family-scaffold"'):page.index('id="audit-verdicts"')]  # above the verdicts
    assert "submissions" in table and "degenerate" in table and 'class="audit-failed"' in table
    broken = page[page.index('id="audit-broken"'):]
    assert "Reward paid for it" in broken and "dense +" in broken
    degenerate = page[page.index('id="audit-degenerate"'):]
    assert '<strong class="audit-failed">median</strong>' in degenerate  # the paid tier stands out, though no medal
    # The task page: the paid median row is flagged though no medal, with what each scheme pays for its tier.
    task_page = client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
    panel = task_page[task_page.index('id="degenerate-scores"'):]
    panel = panel[:panel.index("</table>")]
    row = next(part for part in panel.split("<tr") if "<td>random</td>" in part)
    assert 'class="degenerate-broken"' in row and "median: the task is broken (the dense reward pays it)" in row
    assert '<td class="num-cell">+0.1</td><td class="num-cell">0</td>' in row  # dense pays the tier, sparse nothing
    assert "judged under the dense reward" in task_page
    listing = client_for("viewer").get("/task-sets/").content.decode()
    assert f"{task.task_id} broken: random scores" in listing and "reaches median (dense +" in listing
    detail = api_for("viewer").get(f"/api/audits/{audit.id}/").json()
    rows = {(row["family"], row["scaffold"]): row for row in detail["family_scaffold"]}
    assert rows[("submissions", "react")] == {"family": "submissions", "scaffold": "react", "contained": 2,
                                              "failing": 0}
    assert rows[("degenerate", "any")]["failing"] == len(audit.summary["broken_tasks"])

    with django_capture_on_commit_callbacks(execute=False):
        warned = training_services.training_run_create(task_set=task_set, model="models/any", steps=1,
                                                       user=users["curator"])
    assert warned.audit_warning.startswith(f"the last audit of task set web-set (#{audit.id}) failed: 0 failing")
    assert "random earns the median tier (dense +0.1)" in warned.audit_warning
    settings.SANDMLE_REQUIRE_AUDIT = True
    with pytest.raises(ServiceError) as refused:
        training_services.training_run_create(task_set=task_set, model="models/any", steps=1, user=users["curator"])
    assert refused.value.field == "task_set" and "SANDMLE_REQUIRE_AUDIT" in str(refused.value)
    body = {"task_set": task_set.name, "kind": "grpo", "model": "models/any", "steps": 1}
    response = api_for("curator").post("/api/training-runs/", body, format="json")
    assert response.status_code == 400 and "SANDMLE_REQUIRE_AUDIT" in response.json()["task_set"][0]


def test_the_unedited_set_passes_with_its_counts_shown(task_set, users, client_for, settings,
                                                       django_capture_on_commit_callbacks):
    audit = _audit(task_set, users, django_capture_on_commit_callbacks)
    assert audit.passed is True and audit.summary["verdict"] == "passed · 2 cases contained · 0 broken tasks"
    page = client_for("viewer").get(f"/audits/{audit.id}/").content.decode()
    table = page[page.index('id="audit-family-scaffold"'):page.index('id="audit-verdicts"')]
    assert "submissions" in table and "degenerate" in table and 'class="audit-failed"' not in table
    # Passed, but one attack is a quick look, labelled partial: it opens no training gate (tests/web/test_audit_gate.py).
    assert audit.partial_note.startswith("partial: 1 of ") and 'class="audit-partial"' in page
