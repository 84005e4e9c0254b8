"""Browser: a researcher ticks two runs that differ in the reward scheme, compares them on one chart with the one
differing setting listed, then opens a step's groups with each sample's advantage (stored runs, real Chromium)."""

from __future__ import annotations

import pytest

from tests.stored_runs import two_runs  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_compare_two_runs_then_read_a_steps_advantages(login, live_server, two_runs, shot):
    sparse, dense = two_runs
    page = login("viewer")
    page.goto(f"{live_server.url}/training/")
    page.check(f"input[name=runs][value='{sparse.id}']")
    page.check(f"input[name=runs][value='{dense.id}']")
    page.click("text=Compare the ticked runs")
    page.wait_for_url("**/training/compare/**")
    differences = page.locator("#differences").inner_text()
    assert "reward" in differences and "sparse" in differences and "dense" in differences
    page.wait_for_selector("#reward-curve .main-svg")  # plotly drew the chart
    legend = page.locator("#reward-curve .legendtext").all_text_contents()  # SVG text: no innerText
    assert sorted(legend) == [f"#{sparse.id} sparse", f"#{dense.id} dense"]  # both runs on one chart
    shot(page, "01-compare")

    page.click(f"#compared-runs >> text=#{sparse.id}")
    assert "No learning signal at every step" in page.locator("#zero-spread-notice").inner_text()
    page.goto(f"{live_server.url}/training/{dense.id}/")
    page.locator("#steps >> text=groups and advantages").first.click()
    page.wait_for_url("**/steps/1/")
    assert page.locator("#group-1 td.advantage").all_inner_texts() == ["-0.707", "0.707"]
    assert "no spread" in page.locator("#group-2").inner_text()
    shot(page, "02-step-advantages")
