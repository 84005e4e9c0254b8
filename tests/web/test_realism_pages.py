"""Believable tasks in the studio: the task page's column table (unit, declared range, observed range), and every rng
from 0 to 2**32 - 1 accepted by the synthesis form and synthesized by the regenerate action (property-based)."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from tasks_app.tasks import regenerate
from tasks_app.synthesis.models import RNG_MAX
from tasks_app.synthesis.forms import SynthesisRunForm
from tasks_app.models import SynthesisRun, SynthesizedTask


@pytest.fixture
def pending(stored_tasks):
    return next(task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW)


def test_task_page_shows_each_column_unit_declared_and_observed_range(client_for, pending):
    html = client_for("viewer").get(f"/tasks/{pending.task_id}/").content.decode()
    table = html[html.index('id="column-ranges"'):]
    table = table[:table.index("</table>")]
    rows = pd.concat([pd.read_csv(f"{pending.bundle_dir}/public/{name}") for name in ("train.csv", "test.csv")])
    for column in pending.spec["domain"]["features"]:
        row = table[table.index(f"<code>{column['name']}</code>"):]
        row = row[:row.index("</tr>")]
        assert f"<td>{column['unit']}</td>" in row
        if "typical" in column:
            low, high = column["typical"]
            assert f"{low:g} to {high:g}" in row
            values = pd.to_numeric(rows[column["name"]], errors="coerce")
            assert f"<td>{values.min():g} to {values.max():g}</td>" in row


@settings(max_examples=200, deadline=None)
@given(rng=st.integers(-(2**40), 2**40))
def test_synthesis_form_accepts_exactly_the_rngs_that_synthesize(rng):
    form = SynthesisRunForm(data={"count": 1, "rng": rng}, seed=None, may_choose_rule_family=False)
    assert form.is_valid() == (0 <= rng <= RNG_MAX), form.errors


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rng=st.integers(0, RNG_MAX))
@example(rng=RNG_MAX)
@example(rng=5_000_000)
def test_regenerate_synthesizes_every_accepted_rng(api_for, pending, rng, django_capture_on_commit_callbacks):
    assume(rng != pending.spec["rng_seed"])
    assume(not SynthesisRun.objects.filter(rng=rng, summary__regenerates=pending.task_id).exists())
    with django_capture_on_commit_callbacks(execute=False):
        response = api_for("curator").post(f"/api/tasks/{pending.task_id}/regenerate/", {"rng": rng}, format="json")
    assert response.status_code == 202, response.content
    run_id = response.json()["id"]
    assert regenerate.task_regenerate_execute(run_id=run_id, worker="test") is True
    run = SynthesisRun.objects.get(id=run_id)
    assert run.state == "succeeded", run.error
    new = SynthesizedTask.objects.get(run=run)
    assert new.rule_family == pending.rule_family and 0 <= new.spec["rng_seed"] <= RNG_MAX


def test_regenerate_page_takes_the_largest_rng_and_refuses_beyond(client_for, pending, users,
                                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for("curator").post(f"/tasks/{pending.task_id}/regenerate/", {"rng": str(RNG_MAX)})
        refused = client_for("curator").post(f"/tasks/{pending.task_id}/regenerate/", {"rng": str(RNG_MAX + 1)})
    assert response.status_code == 302 and SynthesisRun.objects.filter(rng=RNG_MAX).count() == 1
    assert refused.status_code == 302 and not SynthesisRun.objects.filter(rng=RNG_MAX + 1).exists()
    drawn = {regenerate.task_regenerate(task=pending, user=users["curator"]).rng for _ in range(5)}
    assert all(0 <= rng <= RNG_MAX for rng in drawn)
