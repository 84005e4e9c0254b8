"""A task set in a real headless Chromium: open its page from the list, launch rollouts from it with the set
preselected, and send one of its tasks back to review."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_set(users):
    from tasks_app.models import Seed, SynthesizedTask
    from tasks_app.task_sets.services import task_set_create

    seed = Seed.objects.create(name="browser-set-seed", source="upload", target="y", task_type="binary",
                               metric="roc_auc", modality="tabular", n_rows=10, n_features=2)
    tasks = [SynthesizedTask.objects.create(task_id=f"browser-set-{index}", seed=seed, status="approved",
                                            title="Ventilation", metric="roc_auc", reviewed_by=users["reviewer"],
                                            ladder={"baseline": 0.5, "linear": 0.8, "oracle": 0.9})
             for index in range(2)]
    task_set_create(name="aaa-other", task_ids=[tasks[0].task_id], user=users["curator"])
    return task_set_create(name="browser-set", task_ids=[task.task_id for task in tasks], user=users["curator"])


def test_open_a_set_launch_rollouts_on_it_and_send_a_task_back(login, live_server, browser_set):
    page = login("reviewer")
    page.click("text=Task sets")
    page.click("#task-sets >> text=browser-set")
    page.wait_for_url("**/task-sets/browser-set/")
    assert page.locator("#set-task-table tbody tr").count() == 2
    assert "0.75" in page.locator("#set-task-table").inner_text()  # each task's headroom

    page.click("#launch-rollouts")
    page.wait_for_url("**/rollouts/?task_set=browser-set*")
    assert page.locator("#rollout-form select[name=task_set]").input_value() == "browser-set"  # not "aaa-other"

    page.go_back()
    page.click("#set-task-table >> text=browser-set-1")
    page.wait_for_url("**/tasks/browser-set-1/")
    page.fill("#reopen-form textarea[name=reason]", "the labels drift after row 40")
    page.click("#reopen-form button[type=submit]")
    page.wait_for_url("**/tasks/browser-set-1/#review")  # back on the task, at its review panel
    assert "pending review" in page.locator("#review").inner_text()
    assert "the labels drift after row 40" in page.locator("#audit-history").inner_text()
