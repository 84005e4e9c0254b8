"""Walk: two reviewers take a task through the review queue (filter, charts, comment, request changes, reopen,
approve twice under a quorum of two, audit history), and a reviewer comments on one turn of a trajectory."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REASON_CHANGES = "Label balance looks off: regenerate with a wider split."
REASON_REOPEN = "Checked again after the curator's note."


@pytest.fixture
def second_reviewer(users):
    """A reviewer besides the `reviewer` user: the quorum of two needs two different people."""
    from accounts.roles import Role
    from accounts.services import user_create

    return user_create(username="reviewer-b", password="pw-reviewer-b", role=Role.REVIEWER)


def _pending_task(stored_tasks):
    from tasks_app.models import SynthesizedTask

    pending = [task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW]
    assert pending, "the session's iris tasks should wait for review"
    return pending[0]


def _decide(page, verdict: str, reason: str):
    page.select_option("#review-form select[name=verdict]", verdict)
    page.fill("#review-form textarea[name=body]", reason)
    page.click("#review-form button[type=submit]")
    page.wait_for_load_state("load")


def _status(page) -> str:
    return page.locator("#review .state").first.inner_text().strip().lower()


def test_two_reviewers_take_a_task_through_review(login_as, live_server, stored_tasks, second_reviewer, settings,
                                                 shot):
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 2
    task = _pending_task(stored_tasks)
    page = login_as("reviewer")

    page.click("#flow-nav >> text=Review")
    page.wait_for_url("**/review/")
    pending_ids = {t.task_id for t in stored_tasks if t.status == "pending_review"}
    assert set(page.locator("#review-queue tbody a").all_inner_texts()) == pending_ids
    shot(page, "01-queue")
    page.select_option("#queue-filters select[name=domain]", task.domain_id)
    page.select_option("#queue-filters select[name=rule_family]", task.rule_family)
    page.select_option("#queue-filters select[name=assignee]", "anyone")
    page.click("#queue-filters button[type=submit]")
    page.wait_for_url(f"**domain={task.domain_id}**")
    listed = page.locator("#review-queue tbody a").all_inner_texts()
    assert listed == [task.task_id]  # the other pending iris task is of another domain
    shot(page, "02-queue-filtered")

    page.click(f"#review-queue >> text={task.task_id}")
    page.wait_for_url(f"**/tasks/{task.task_id}/")
    # Every chart drew its figure with data: plotly puts one SVG point (bar or marker) per value of a trace.
    charts = page.locator(".chart[data-figure]")
    assert charts.count() >= 2
    page.wait_for_function("n => document.querySelectorAll('.chart .main-svg').length >= n", arg=charts.count())
    for index in range(charts.count()):
        chart = charts.nth(index)
        assert chart.locator(".main-svg g.trace").count() >= 1, f"chart {index} has no trace"
        assert chart.locator(".main-svg g.trace .point").count() >= 2, f"chart {index} has no data points"
    assert page.locator("#approval-count").inner_text() == "0 of 2"
    shot(page, "03-task-pending")
    page.click("#jump-to-review")  # the panel sits below a long page of task detail: the header links to it
    assert page.locator("#review-form").is_visible()

    _decide(page, "comment", "Petal widths cluster tightly; is the threshold near the boundary?")
    assert page.locator("#review .thread >> text=Petal widths cluster tightly").count() == 1
    _decide(page, "request_changes", REASON_CHANGES)
    assert _status(page) == "changes requested"
    # Out of review the panel takes comments only: a decision would be refused anyway.
    assert page.locator("#review-form select[name=verdict]").count() == 0
    assert page.locator("#review-form input[name=verdict]").get_attribute("value") == "comment"
    shot(page, "04-changes-requested")

    page.fill("#reopen-form textarea[name=reason]", REASON_REOPEN)
    page.click("#reopen-form button[type=submit]")
    page.wait_for_load_state("load")
    assert _status(page) == "pending review"
    assert "round 2" in page.locator("#review").inner_text()

    _decide(page, "approve", "Rule reads well and the data supports it.")
    # An approval moves the reviewer on to the next task waiting on them, saying what was decided.
    assert f"Approved {task.task_id} (1 of 2 approvals" in page.locator(".messages").inner_text()
    assert task.task_id not in page.url
    page.goto(f"{live_server.url}/tasks/{task.task_id}/")
    assert page.locator("#approval-count").inner_text() == "1 of 2"
    assert _status(page) == "pending review"
    shot(page, "05-one-of-two")

    other = login_as("reviewer-b")
    other.goto(f"{live_server.url}/tasks/{task.task_id}/")
    _decide(other, "approve", "Agree with the first reviewer.")
    assert f"Approved {task.task_id}." in other.locator(".messages").inner_text()
    other.goto(f"{live_server.url}/tasks/{task.task_id}/")
    assert _status(other) == "approved"
    shot(other, "06-approved")

    rows = other.locator("#audit-history tbody tr")
    history = [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]
    steps = [(who, change.replace("\xa0", " ").split("→")[-1].strip(), why) for _, who, change, why, _ in history]
    assert ("reviewer", "changes requested", REASON_CHANGES) in steps
    assert ("reviewer", "pending review", REASON_REOPEN) in steps
    assert ("reviewer-b", "approved", "Agree with the first reviewer.") in steps
    whoever = {who for who, _, _ in steps}
    assert {"reviewer", "reviewer-b"} <= whoever


def test_reviewer_comments_on_one_trajectory_turn(login_as, live_server, finished_batch, shot):
    from training_app.models import Trajectory

    trajectory = Trajectory.objects.filter(batch=finished_batch).order_by("id").first()
    assert trajectory.n_turns >= 2
    page = login_as("reviewer")
    page.goto(f"{live_server.url}/trajectories/{trajectory.id}/")
    # Turn comments are stored from 0 and shown from 1, as the trajectory numbers its turns: #turn-1 is "Turn 2".
    turn = page.locator("#turn-1")  # the comments of turn 2, under the turn itself
    assert turn.locator("summary").inner_text() == "Comment on turn 2"
    assert page.locator("#turn-at-1 > .muted >> text=/^turn 2 ·/").count() == 1 and page.locator("#turn-at-1 #turn-1").count() == 1
    turn.locator("summary").click()
    turn.locator("textarea[name=body]").fill("This turn reads the private answers? Check the sandbox log.")
    turn.locator("button[type=submit]").click()
    page.wait_for_url(f"**/trajectories/{trajectory.id}/#turn-1")
    assert page.locator("#turn-1 .thread >> text=Check the sandbox log.").count() == 1
    assert page.locator("#turn-0 .thread").count() == 0
    shot(page, "07-turn-comment")
