"""Long pages get a map (issue 57), read in a real headless Chromium as a researcher reads them: the task page's sticky
section index with empty sections folded, CSV previews as typed tables, folded code in a trajectory, the first
difference marked side by side, readable metric names, and the landing after creating a task set."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_task_page_has_a_sticky_index_and_folds_what_is_empty(login_as, live_server, stored_tasks, shot,
                                                              screenshot_dir):
    task = next(task for task in stored_tasks if task.status == "pending_review")
    page = login_as("reviewer")
    page.goto(f"{live_server.url}/tasks/{task.task_id}/")
    labels = page.locator("#section-index a").all_inner_texts()
    assert labels[:4] == ["Critic", "Hidden rule", "Ladder", "Review"]  # what a reviewer decides on comes first
    order = page.evaluate("() => [...document.querySelectorAll('main section.card[id]')].map(node => node.id)")
    assert order.index("review") < order.index("data-charts") < order.index("rollout-stats")
    rollouts = page.locator("#rollout-stats")
    assert "folded-section" in rollouts.get_attribute("class") and "No rollout batch has sampled" in rollouts.inner_text()
    assert page.locator("#section-index a.empty", has_text="Rollouts").count() == 1

    page.locator("#section-index a", has_text="Data").click()
    page.wait_for_timeout(200)
    index_box = page.locator("#section-index").bounding_box()
    assert page.evaluate("() => window.scrollY") > 1000 and abs(index_box["y"]) < 2  # stuck to the top, still in view
    page.screenshot(path=str(screenshot_dir / "long_pages--task-page-at-data.png"))  # the screen as the reader sees it

    preview = page.locator("#preview-traincsv")
    assert preview.get_attribute("open") is not None
    header = preview.locator("thead th")
    assert header.count() >= 5 and header.first.locator(".column-type").inner_text() in {"integer", "number", "text"}
    assert header.first.evaluate("node => getComputedStyle(node).position") == "sticky"
    assert preview.locator("tbody tr").count() == 15
    assert "of" in preview.locator(".preview-count").inner_text() and "rows" in preview.locator("summary").inner_text()
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "task-page")


def test_trajectory_folds_long_code_and_shows_it_once(login_as, live_server, finished_batch, shot):
    trajectory = finished_batch.trajectories.order_by("id").first()
    page = login_as("viewer")
    page.goto(f"{live_server.url}/trajectories/{trajectory.id}/")
    folded = page.locator(".turn details.long-block")
    assert folded.count() >= 1
    summary = folded.first.locator("summary").inner_text()
    assert summary.split(" · ")[0] in {"code", "output", "reply"} and summary.endswith(" lines")
    assert int(summary.split(" · ")[1].split()[0]) > 30
    assert not folded.first.evaluate("node => node.open")  # folded until asked
    assert page.locator(".turn .same-code").count() >= 1  # the tool turn points back to the code, not a second copy
    shot(page, "trajectory")


def test_side_by_side_marks_where_the_samples_first_differ(login_as, live_server, finished_batch, shot):
    first = finished_batch.trajectories.order_by("id").first()
    page = login_as("viewer")
    page.goto(f"{live_server.url}/rollouts/{finished_batch.id}/compare/{first.task.task_id}/")
    columns = page.locator(".trajectory")
    assert columns.count() == finished_batch.samples
    # The baseline seeds each sample's modelling code differently: the samples agree on their first look at the files
    # and part ways on the code they fit (turn 3), which opens there in every column.
    assert page.locator("#first-difference-note").inner_text() == "the samples first differ on turn 3, marked in each column"
    marked = page.locator(".turn.first-difference")
    assert marked.count() == finished_batch.samples
    assert marked.first.locator(".first-difference-mark").is_visible()
    assert marked.first.locator("details.long-block").evaluate("node => node.open")
    assert page.locator(".turn.first-difference", has_text="turn 1 ").count() == 0
    shot(page, "compare")


def test_creating_a_task_set_lands_on_the_set(login_as, live_server, stored_tasks, users, shot):
    from tasks_app.review import services as review_services

    task = next(task for task in stored_tasks if task.status == "pending_review")
    review_services.task_approve(task=task, user=users["reviewer"])
    page = login_as("curator")
    page.goto(f"{live_server.url}/task-sets/")
    page.fill("input[name=name]", "landing-set")
    page.locator(f"input[name=task_ids][value='{task.task_id}']").check()
    page.locator("#task-set-form button[value=checked]").click()
    page.wait_for_url(f"{live_server.url}/task-sets/landing-set/")
    assert "landing-set" in page.locator("h1").inner_text()
    shot(page, "task-set")


def test_launch_forms_put_labels_above_their_choices(login_as, live_server, task_set, shot):
    page = login_as("curator")
    page.goto(f"{live_server.url}/campaigns/")
    legend = page.locator("#campaign-form fieldset legend", has_text="Scaffolds")
    first_box = page.locator("#campaign-form input[name=scaffolds]").first
    assert legend.bounding_box()["y"] < first_box.bounding_box()["y"]
    assert page.locator("nav.pager").count() == 0  # one page: the count, no dead links
    shot(page, "campaign-form")
    page.goto(f"{live_server.url}/rollouts/")
    shot(page, "rollout-form")
