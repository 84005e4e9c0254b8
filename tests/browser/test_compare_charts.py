"""The compare page drawn by Chromium: every chart's legend clears its title, its axis titles and the plot area,
and stays inside the chart, and a run keeps one colour on every chart; the page's screenshot is kept for a person to look at."""

from __future__ import annotations

import pytest

from tests.stored_runs import two_runs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def _overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] \
        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_compare_legends_stay_clear_of_titles_and_plots(login, live_server, two_runs, screenshot_dir):
    sparse, dense = two_runs
    page = login("viewer")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/training/compare/?runs={sparse.id}&runs={dense.id}")
    page.wait_for_selector("#reward-curve .main-svg")
    page.wait_for_timeout(300)  # every chart of the grid drawn
    charts = page.locator("[data-figure]")
    assert charts.count() >= 5
    colours: dict[str, set] = {}
    for index in range(charts.count()):
        chart = charts.nth(index)
        legend = chart.locator(".legend").bounding_box()
        frame = chart.locator(".main-svg").first.bounding_box()
        assert frame["x"] <= legend["x"] and legend["x"] + legend["width"] <= frame["x"] + frame["width"] + 1
        for entry in chart.locator(".legend .traces").all():  # each entry drawn whole, not cut at the chart's edge
            box = entry.bounding_box()
            assert box["x"] + box["width"] <= frame["x"] + frame["width"] + 1, (chart.get_attribute("id"), box)
        parts = chart.locator(".g-gtitle text, .g-xtitle text, .g-ytitle text, .g-y2title text, .nsewdrag").all()
        assert len(parts) >= 4, chart.get_attribute("id")  # drawn: axis titles and the plot area
        entries = [entry.bounding_box() for entry in chart.locator(".legend .traces").all()]
        for part in parts:  # the chart's title, its axis titles, the plot area
            box = part.bounding_box()
            assert box and not any(_overlap(entry, box) for entry in entries), (chart.get_attribute("id"), entries, box)
        for entry in chart.locator(".legend .traces").all():
            name = entry.locator(".legendtext").text_content().split(" · ")[0]
            colours.setdefault(name, set()).add(entry.locator(".legendlines path, .legendpoints path").first
                                                .evaluate("e => getComputedStyle(e).stroke"))
    assert set(colours) == {f"#{sparse.id} sparse", f"#{dense.id} dense"}
    assert all(len(found) == 1 for found in colours.values()) and len(set.union(*colours.values())) == 2
    page.screenshot(path=str(screenshot_dir / "compare-legends.png"), full_page=True)


def test_run_page_draws_the_evaluations_reward_split_beside_the_steps(login, live_server, task_set, users, tmp_path,
                                                                        screenshot_dir):
    from tests.stored_runs import stored_run

    split = {"valid": 0.2, "milestone": 0.3}
    lines = [{"step": step, "reward_mean": 0.5, "reward_std": 0.1, "loss": 0.1, "reward_components": split}
             | ({"eval_reward_mean": 0.4, "eval_reward_components": {"valid": 0.2, "milestone": 0.2}}
                if step % 2 == 0 else {}) for step in (1, 2, 3, 4)]
    run = stored_run(task_set, users, tmp_path, name="evaluated", reward="dense", lines=lines, records={})
    page = login("viewer")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/training/{run.id}/")
    page.wait_for_selector("#eval_reward_parts-curve .main-svg")
    steps, evaluation = (page.locator(f"#{name}-curve").bounding_box() for name in ("reward_parts", "eval_reward_parts"))
    assert evaluation["y"] == steps["y"] and evaluation["x"] > steps["x"]  # side by side in the grid
    # Plotly lists a stack top first: the total, then the parts as they are stacked.
    assert page.locator("#eval_reward_parts-curve .legendtext").all_text_contents() == ["total", "milestone", "valid"]
    page.screenshot(path=str(screenshot_dir / "run-reward-parts.png"), full_page=True)
