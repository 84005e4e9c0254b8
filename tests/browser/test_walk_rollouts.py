"""Walk: a curator groups approved tasks into a task set from its page, launches a baseline rollout batch that a
real Celery worker runs, and reads one trajectory turn by turn."""

from __future__ import annotations

import pytest

from tests.browser.conftest import wait_for_job_state

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def approved_tasks(users, stored_tasks, settings):
    from tasks_app.review.services import task_approve

    # This walk is about rollouts: one reviewer's approval is enough here (the review walk covers the quorum).
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1

    return [task_approve(task=task, user=users["reviewer"]) for task in stored_tasks if task.status == "pending_review"]


def test_curator_makes_a_task_set_runs_a_baseline_batch_and_reads_a_trajectory(login_as, live_server, studio_worker,
                                                                                approved_tasks, shot):
    page = login_as("curator")
    page.click("#flow-nav >> text=Task sets")
    shot(page, "01-task-sets-empty")
    page.fill("#task-set-form input[name=name]", "walk-set")
    page.fill("#task-set-form textarea[name=description]", "Approved iris tasks for the browser walk")
    for task in approved_tasks:
        page.check(f"#task-set-form input[value='{task.task_id}']")
    page.click("#task-set-form button[type=submit]")
    assert page.locator("#task-sets >> text=walk-set").count() == 1
    shot(page, "02-task-set-made")

    page.click("#flow-nav >> text=Rollouts")
    page.select_option("#rollout-form select[name=task_set]", "walk-set")
    page.select_option("#rollout-form select[name=scaffold]", "react")
    page.fill("#rollout-form input[name=policy]", "baseline")
    page.fill("#rollout-form input[name=samples]", "2")
    shot(page, "03-rollout-form")
    page.click("#rollout-form button[type=submit]")
    page.wait_for_url("**/rollouts/*/")
    assert wait_for_job_state(page, "#batch-state", timeout_s=240) == "succeeded"
    assert "valid rate" in page.locator("#batch-summary").inner_text()
    assert page.locator("#trajectories a.state").count() == 2 * len(approved_tasks)
    shot(page, "04-batch-succeeded")

    page.locator("#trajectories a.state").first.click()
    page.wait_for_url("**/trajectories/*/")
    assert page.locator(".turn").count() >= 2
    assert page.locator(".ladder .rung").count() == 5
    shot(page, "05-trajectory")

    page.click("#flow-nav >> text=Rollouts")
    assert page.locator("#batches >> text=walk-set").count() == 1
    shot(page, "06-rollout-batches")
    page.goto(f"{live_server.url}/tasks/{approved_tasks[0].task_id}/")
    assert "No rollouts on this task yet." not in page.locator("#rollout-stats").inner_text()
    shot(page, "07-task-with-rollout-stats")
