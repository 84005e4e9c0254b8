"""The studio's frame in Chromium: one look, flow navigation, the dashboard, a task page whose plotly charts draw
their data, and a viewer who finds no hidden rule. Every page visited is saved as a screenshot artefact."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("SANDMLE_ARTIFACTS") or tmp_path) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


# Pairs of the selected elements whose boxes intersect (an element and one inside it are not a pair).
OVERLAPS = """selector => {
  const nodes = [...document.querySelectorAll(selector)];
  const pairs = [];
  nodes.forEach((a, i) => nodes.slice(i + 1).forEach(b => {
    if (a.contains(b) || b.contains(a)) { return; }
    const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) {
      pairs.push([a.textContent.trim(), b.textContent.trim()]);
    }
  }));
  return pairs;
}"""


def test_reviewer_sees_charts_and_rule_viewer_sees_neither_rule(login, live_server, stored_tasks, shots, browser):
    from tasks_app.tasks import bundle_files

    pending = next(task for task in stored_tasks if task.status == "pending_review")
    page = login("reviewer")
    steps = [text.strip("→ \n") for text in page.locator("#flow-nav li").all_inner_texts()]
    assert steps == ["Seeds", "Synthesis", "Review", "Task sets", "Audits", "Rollouts", "Training", "Evaluation",
                     "Latency"]
    shots(page, "dashboard")
    page.click("#flow-nav >> text=Review")
    shots(page, "review-queue")
    page.click(f"#review-queue >> text={pending.task_id}")
    page.wait_for_selector("#ladder .chart .main-svg")
    page.wait_for_selector("#data-charts .charts .chart .main-svg")
    # Drawn with data: the label chart has one bar per class, each feature chart has bars.
    assert page.locator("#data-charts [data-figure=label-figure] .bars .point").count() >= 2
    assert page.locator("#data-charts .charts .chart .main-svg").count() >= 4
    rule = bundle_files.read_json(pending.bundle_dir, "private/rule.json")
    assert rule["description"][:30] in page.locator("#rule-words").inner_text()
    # The ladder's milestone labels, as Chromium lays out their text: none over another, none over the title.
    assert page.locator("#ladder .annotation").count() >= 3
    assert page.evaluate(OVERLAPS, "#ladder .annotation-text, #ladder .gtitle") == []
    shots(page, "task-page-reviewer")
    page.click("#flow-nav >> text=Seeds")
    shots(page, "seeds")
    page.click("#flow-nav >> text=Synthesis")
    shots(page, "synthesis-runs")

    # At 1,024 px the navigation holds one line, no link over another, and the page does not scroll sideways.
    page.set_viewport_size({"width": 1024, "height": 800})
    page.goto(f"{live_server.url}/")
    assert page.evaluate(OVERLAPS, ".topbar nav a, .topbar nav button, .flow li") == []
    assert len({round(box["y"]) for box in page.locator("#flow-nav li").evaluate_all(
        "items => items.map(item => item.getBoundingClientRect())")}) == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024

    viewer = browser.new_context().new_page()
    viewer.goto(f"{live_server.url}/login/")
    viewer.fill("input[name=username]", "viewer")
    viewer.fill("input[name=password]", "pw-viewer")
    viewer.click("button[type=submit]")
    viewer.wait_for_url(f"{live_server.url}/")
    for path in ("/", "/tasks/", f"/tasks/{pending.task_id}/"):
        viewer.goto(f"{live_server.url}{path}")
        assert rule["description"][:30] not in viewer.content()
    viewer.wait_for_selector("#data-charts .charts .chart .main-svg")
    shots(viewer, "task-page-viewer")
    viewer.goto(f"{live_server.url}/tasks/")
    shots(viewer, "task-list-viewer")
