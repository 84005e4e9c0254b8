"""Walk: a curator uploads a CSV seed made on the spot, starts a synthesis run from its page and a real Celery
worker synthesizes the tasks while the page shows live progress."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.browser.conftest import wait_for_job_state

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _seed_csv(path) -> str:
    """A small mixed-type binary table: two numeric columns, one categorical, a label that depends on them."""
    rng = np.random.default_rng(7)
    rows = 160
    frame = pd.DataFrame({"pressure": rng.normal(100, 15, rows).round(2), "flow": rng.gamma(2.0, 3.0, rows).round(3),
                          "site": rng.choice(["north", "south", "east"], rows)})
    frame["alarm"] = np.where(frame["pressure"] + 4 * (frame["site"] == "east") > 103, "yes", "no")
    frame.to_csv(path, index=False)
    return str(path)


def test_curator_uploads_a_seed_and_synthesizes_tasks_on_a_real_worker(login_as, live_server, studio_worker, shot,
                                                                         tmp_path):
    page = login_as("curator")
    page.click("#flow-nav >> text=Seeds")
    shot(page, "01-seeds-empty")
    page.fill("#seed-upload input[name=name]", "pumps")
    page.set_input_files("#seed-upload input[name=file]", _seed_csv(tmp_path / "pumps.csv"))
    page.fill("#seed-upload input[name=target]", "alarm")
    page.click("#seed-upload button[type=submit]")
    page.wait_for_url("**/seeds/pumps/")
    assert "Seed pumps added." in page.locator(".messages").inner_text()
    assert '"task_type": "binary"' in page.locator("#dna-json").text_content()
    shot(page, "02-seed-page")

    page.fill("#synthesis-form input[name=count]", "2")
    page.fill("#synthesis-form input[name=rng]", "5")
    page.click("#synthesis-form button[type=submit]")
    page.wait_for_url("**/synthesis/*/")
    shot(page, "03-run-queued")
    assert wait_for_job_state(page, "#run-state", timeout_s=240) == "succeeded"
    assert "validated" in page.locator("#run-summary").inner_text()
    task_links = page.locator("table.tasks tbody a")
    assert task_links.count() == 2
    shot(page, "04-run-succeeded")

    task_links.first.click()
    page.wait_for_url("**/tasks/*/")
    # The badge words the status for people; the stored value stays on data-status.
    status = page.locator("#task-status")
    assert status.get_attribute("data-status") in {"pending_review", "rejected", "draft"}
    assert status.inner_text() in {"pending review", "rejected", "draft"}
    page.wait_for_selector("#data-charts .chart .main-svg")
    shot(page, "05-new-task")
    page.click("#flow-nav >> text=Synthesis")
    assert page.locator("text=pumps").count() >= 1
    shot(page, "06-synthesis-runs")
