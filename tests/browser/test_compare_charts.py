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
