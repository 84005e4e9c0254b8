"""The studio in a real headless Chromium: log in, browse seeds and DNA, review and approve a task."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_viewer_browses_seeds_and_dna(login, live_server):
    from tasks_app.seeds.services import seeds_load_bundled

    seeds_load_bundled()
    page = login("viewer")
    page.click("text=Seeds")
    assert page.locator("#seeds tbody tr").count() == 5
    page.click("#seeds >> text=digits")
    page.click("text=Full DNA (JSON)")
    assert '"modality": "image"' in page.locator("#dna-json").inner_text()
    assert page.locator("#synthesis-form").count() == 0  # viewers cannot launch synthesis


def test_reviewer_approves_from_the_queue(login, live_server, stored_tasks):
    pending = next(task for task in stored_tasks if task.status == "pending_review")
    page = login("reviewer")
    page.click("nav >> text=Review")  # a reviewer's Review step opens the queue
    page.click(f"#review-queue >> text={pending.task_id}")
    assert pending.rule_family in page.locator("#hidden-rule").inner_text()
    page.select_option("#review-form select[name=verdict]", "approve")
    page.fill("#review-form textarea[name=body]", "Clear rule, sensible ladder.")
    page.click("#review-form button[type=submit]")
    page.wait_for_load_state("load")
    # A decision moves the reviewer on (the next task, or the queue), saying what was decided.
    assert f"Approved {pending.task_id}." in page.locator(".messages").inner_text()
    page.goto(f"{live_server.url}/tasks/{pending.task_id}/")
    assert page.locator("#task-status").inner_text() == "approved"
    assert "Clear rule, sensible ladder." in page.locator("#review").inner_text()
