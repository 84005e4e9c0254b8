"""The review pages as a reviewer reads them (issue 48): no console error on the task page, the queue or a seed's DNA
page (the favicon included), and the hidden rule shown with its line breaks and indentation."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_review_pages_log_no_console_error_and_keep_the_rule_nested(login_as, live_server, stored_tasks, shot):
    from tasks_app.tasks import bundle_files

    task = next(task for task in stored_tasks if task.status == "pending_review")
    page = login_as("reviewer")
    problems: list[str] = []
    page.on("console", lambda message: problems.append(f"console {message.text}") if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error {error}"))
    page.on("response", lambda response: problems.append(f"{response.status} {response.url}")
            if response.status >= 400 else None)

    for path in ("/review/", f"/tasks/{task.task_id}/", "/seeds/iris/"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("load")
        if path.startswith("/tasks/"):
            page.wait_for_selector("#data-charts .chart .main-svg")  # the charts' script ran
        page.wait_for_timeout(300)  # the favicon is asked for after the load event
        assert problems == [], f"{path}: {problems}"
    shot(page, "dna-page")

    page.goto(f"{live_server.url}/tasks/{task.task_id}/")
    description = bundle_files.read_json(task.bundle_dir, "private/rule.json")["description"]
    rule = page.locator("#rule-words")
    assert rule.evaluate("element => getComputedStyle(element).whiteSpace") == "pre-wrap"
    assert rule.inner_text() == description  # line breaks and indentation as rule.json has them
    lines = description.count("\n") + 1
    line_height = rule.evaluate("element => parseFloat(getComputedStyle(element).lineHeight) || 16")
    assert rule.bounding_box()["height"] >= lines * line_height * 0.9  # drawn as that many lines, not one run-on line
    chart_count = page.locator("#feature-chart-count").inner_text()
    assert "columns charted" in chart_count and "hidden rule" in chart_count
    shot(page, "task-page")
    assert problems == []
