"""A finished rollout batch in a real headless Chromium: the batch, one trajectory turn by turn, the group side by side."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_viewer_reads_a_trajectory_and_compares_the_group(login, live_server, finished_batch):
    page = login("viewer")
    page.click("text=Rollouts")
    page.click(f"#batches >> text=#{finished_batch.id}")
    assert page.locator("#batch-state").inner_text() == "succeeded"
    assert page.locator("#batch-summary").inner_text().count("valid rate") == 1

    page.locator("#trajectories a.state").first.click()
    page.wait_for_url("**/trajectories/*/")
    assert page.locator(".turn").count() >= 2
    assert page.locator(".turn .highlight").count() >= 1  # the code the policy ran, highlighted
    assert page.locator(".ladder .rung").count() == 5  # median, bronze, silver, gold and the score
    assert "dense" in page.locator("table.rewards").inner_text()

    page.go_back()
    page.locator("#trajectories >> text=compare side by side").first.click()
    page.wait_for_url("**/compare/*/")  # on a busy machine the count below would otherwise read the page before it
    assert page.locator(".trajectory").count() == finished_batch.samples
