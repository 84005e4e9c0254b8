"""An adaptive run's page drawn by Chromium (issue 56): a reviewer sees the lineage chart and the successors waiting
under review hold, approves one with the page's own button, and once the controller's next step takes it, the page
marks the level change; the screenshots are kept under /tmp/adaptive-shots/ for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandmle.rl import environment_log
from tests.web.test_adaptive_run_page import adaptive_run, play_step

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/adaptive-shots")


def test_a_reviewer_approves_a_waiting_successor_from_the_run_page(login, live_server, task_set, users, tmp_path,
                                                                   settings):
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1
    run, controller = adaptive_run(task_set, users, tmp_path, review="hold")
    first = controller.slots[0].task_id
    for step in (1, 2, 3):
        play_step(run, controller, step, {first: 1.0, controller.slots[1].task_id: 0.0})
    waiting = environment_log.waiting_successors(run.output_dir + "/environments")[0]["task_id"]
    page = login("reviewer")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/training/{run.id}/#environments")
    page.wait_for_selector("#lineage-curve .main-svg")
    assert "2 successors wait for a reviewer" in page.inner_text("#waiting-successors")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "run-page-waiting.png"), full_page=True)
    box = page.locator(f"[id='waiting-{waiting}']")
    box.locator("input[name=reason]").fill("the harder version reads sensibly")
    box.locator("button[value=approve]").click()
    page.wait_for_selector(".messages")
    assert environment_log.verdict_of(run.output_dir + "/environments", waiting) == "approved"
    play_step(run, controller, 4, {controller.slots[0].task_id: 1.0, controller.slots[1].task_id: 0.0})
    assert controller.slots[0].task_id == waiting
    page.reload()  # the same address: goto would only scroll to its #environments
    page.wait_for_selector("#lineage-curve .main-svg")
    page.locator("#environments").screenshot(path=str(SHOTS / "run-page-environments.png"))
    assert page.locator("#lineage-curve svg text", has_text="level 1").count() == 1  # the level change, drawn
    assert "accepted at step 4" in page.inner_text("#successor-table")
