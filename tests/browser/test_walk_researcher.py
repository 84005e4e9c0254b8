"""Walk: a researcher's loop end to end in Chromium (issue 27's "done when"). Upload a seed made from scikit-learn's
bundled data, synthesize with chosen controls on a real Celery worker, review and approve the tasks, make the set
and open its page, launch a rollout batch from it (dense against sparse on its page), launch two GRPO runs of a tiny
random Qwen3 from it that differ in the reward scheme only (with no worker on their queue, their pages say so),
compare them on one chart, open a step's groups with their advantages, let a viewer read without controls or
secrets, and withdraw an approved task. The smallest sizes everywhere: two tasks, two samples, one GRPO step."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.browser.conftest import wait_for_job_state
from tests.hidden_values import hidden_values
from tests.integration.processes import app_on_broker, redis_server

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.torch, pytest.mark.django_db(transaction=True)]

SET = "cells-set"
WITHDRAW_REASON = "The label flips inside one radius band: regenerate with a wider split."


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer Qwen3 with random weights in save_pretrained form: the only model a CPU trains in seconds."""
    pytest.importorskip("torch").set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from django.conf import settings

    from sandmle.rl.tiny_model import build_tiny_checkpoint

    # Under the data directory's models/: a curator may train only from the model roots (training_app/shared/model_roots.py).
    return build_tiny_checkpoint(Path(settings.DATA_DIR) / "models" / tmp_path_factory.mktemp("tiny-qwen3").name)


def seed_csv(path: Path) -> str:
    """Four columns of scikit-learn's bundled breast-cancer data and its diagnosis, 200 rows: a small binary seed."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    frame = data.frame[["mean radius", "mean texture", "mean smoothness", "worst area"]].head(200)
    frame.columns = ["radius", "texture", "smoothness", "area"]
    frame = frame.assign(diagnosis=[str(data.target_names[label]) for label in data.target.head(200)])
    frame.to_csv(path, index=False)
    return str(path)


def launch_training(page, live_server, *, name: str, reward: str, model: str):
    """From the set's page: the launch form comes preselected with the set; one step, a group of two one-turn episodes."""
    from training_app.models import TrainingRun

    page.goto(f"{live_server.url}/task-sets/{SET}/")
    page.click("#launch-training")
    page.wait_for_url(f"**/training/?task_set={SET}*")
    form = page.locator("#training-form")
    assert form.locator("select[name=task_set]").input_value() == SET  # not the alphabetically first set
    form.locator("input[name=name]").fill(name)
    form.locator("select[name=kind]").select_option("grpo")
    form.locator("input[name=model]").fill(model)
    for field, value in {"steps": "1", "group_size": "2", "tasks_per_step": "1", "learning_rate": "0.0001",
                         "max_turns": "1", "max_tokens": "8", "save_every": "1"}.items():
        form.locator(f"input[name={field}]").fill(value)
    form.locator("select[name=reward]").select_option(reward)
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/training/\d+/"))  # the form's #training-form fragment stays on the redirect
    return TrainingRun.objects.get(name=name)


def test_a_researcher_goes_from_a_seed_to_compared_training_runs_and_withdraws_a_task(
        login_as, live_server, studio_worker, tiny_model, shot, tmp_path, users):
    from tasks_app.models import SynthesisRun, SynthesizedTask
    from tasks_app.task_sets.services import task_set_create
    from training_app.models import RolloutBatch
    from workers.training import run_training

    page = login_as("reviewer")  # a researcher who curates, reviews and trains

    # 1. A seed from a CSV, then synthesis with chosen controls on the real worker.
    page.click("#flow-nav >> text=Seeds")
    page.fill("#seed-upload input[name=name]", "cells")
    page.set_input_files("#seed-upload input[name=file]", seed_csv(tmp_path / "cells.csv"))
    page.fill("#seed-upload input[name=target]", "diagnosis")
    page.click("#seed-upload button[type=submit]")
    page.wait_for_url("**/seeds/cells/")
    assert "Seed cells added." in page.locator(".messages").inner_text()
    assert '"task_type": "binary"' in page.locator("#dna-json").text_content()
    form = page.locator("#synthesis-form")
    form.locator("input[name=count]").fill("2")
    form.locator("input[name=rng]").fill("3")
    form.locator("select[name=rule_family]").select_option("rule_list")
    form.locator("input[name=n_train]").fill("60")
    form.locator("input[name=until_passing]").check()
    shot(page, "01-seed-and-controls")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/synthesis/*/")
    assert wait_for_job_state(page, "#run-state", timeout_s=240) == "succeeded"
    assert "validated" in page.locator("#run-summary").inner_text()
    run = SynthesisRun.objects.get()
    assert run.controls == {"rule_family": "rule_list", "n_train": 60, "until_passing": True}
    pending = list(SynthesizedTask.objects.filter(run=run, status="pending_review").order_by("task_id"))
    assert len(pending) == 2 and {task.rule_family for task in pending} == {"rule_list"}
    assert page.locator("table.tasks tbody a").count() == run.tasks.count()
    shot(page, "02-synthesis-succeeded")
    page.click("#flow-nav >> text=Synthesis")
    assert page.locator("text=cells").count() >= 1

    # 2. Review: each task's page, charts drawn, approved (one approval is this studio's default quorum).
    for task in pending:
        page.goto(f"{live_server.url}/tasks/{task.task_id}/")
        status = page.locator("#task-status")  # worded for people; the stored value stays on data-status
        assert status.get_attribute("data-status") == "pending_review" and status.inner_text() == "pending review"
        page.wait_for_selector("#data-charts .chart .main-svg")
        page.select_option("#review-form select[name=verdict]", "approve")
        page.fill("#review-form textarea[name=body]", "The rule reads well in the cells' own units.")
        page.click("#review-form button[type=submit]")
        page.wait_for_load_state("load")
        assert f"Approved {task.task_id}." in page.locator(".messages").inner_text()  # and on to the next one
        page.goto(f"{live_server.url}/tasks/{task.task_id}/")
        assert page.locator("#review .state").first.inner_text().strip().lower() == "approved"
    shot(page, "03-task-approved")

    # 3. The set, made on the task-set page, and its own page. A set named earlier in the alphabet exists, so the
    # launch forms' preselection below is the link's doing.
    task_set_create(name="aaa-other", task_ids=[pending[0].task_id], user=users["curator"])
    page.click("#flow-nav >> text=Task sets")
    page.fill("#task-set-form input[name=name]", SET)
    page.fill("#task-set-form textarea[name=description]", "Breast-cancer cells, rule lists, for the walk")
    for task in pending:
        page.check(f"#task-set-form input[value='{task.task_id}']")
    page.click("#task-set-form button[type=submit]")
    page.wait_for_url(f"**/task-sets/{SET}/")  # a new set lands on its own page (issue 57)
    assert page.locator("#set-task-table tbody tr").count() == 2
    assert "never audited" in page.locator("#set-audit").inner_text()
    shot(page, "04-set-page")

    # 4. A rollout batch from the set's launch link, run by the worker; dense against sparse on its page.
    page.click("#launch-rollouts")
    page.wait_for_url(f"**/rollouts/?task_set={SET}*")
    assert page.locator("#rollout-form select[name=task_set]").input_value() == SET
    page.select_option("#rollout-form select[name=scaffold]", "react")
    page.fill("#rollout-form input[name=policy]", "baseline")
    page.fill("#rollout-form input[name=samples]", "2")
    page.click("#rollout-form button[type=submit]")
    page.wait_for_url(re.compile(r"/rollouts/\d+/"))  # the form's #rollout-form fragment stays on the redirect
    assert wait_for_job_state(page, "#batch-state", timeout_s=240) == "succeeded"
    assert page.locator("#trajectories a.state").count() == 4
    batch = RolloutBatch.objects.get()
    page.wait_for_selector("#reward-schemes-chart .main-svg")
    legend = sorted(page.locator("#reward-schemes-chart .legendtext").all_text_contents())
    assert legend == ["dense", "sparse"]
    rows = page.locator("#reward-schemes-table tbody tr")
    assert [rows.nth(i).get_attribute("data-scheme") for i in range(rows.count())] == ["dense", "sparse"]
    assert f"n={batch.summary['episodes']}" in rows.first.inner_text()
    shot(page, "05-batch-dense-against-sparse")
    page.locator("#trajectories a.state").first.click()
    page.wait_for_url("**/trajectories/*/")
    assert page.locator(".turn").count() >= 2 and page.locator(".ladder .rung").count() == 5
    shot(page, "06-trajectory")
    page.click("#flow-nav >> text=Rollouts")
    assert page.locator(f"#batches >> text={SET}").count() == 1

    # 5. Two GRPO runs from the set, dense and sparse, launched while no worker consumes the gpu queue: a broker
    # with no worker at all, so each run's page and the dashboard say so instead of a silent "queued".
    with redis_server() as url, app_on_broker(url):
        dense = launch_training(page, live_server, name="walk-dense", reward="dense", model=str(tiny_model))
        assert dense.queue == "gpu" and dense.smoke_model and page.locator("#smoke-notice").is_visible()
        assert page.locator("button:has-text('Cancel run')").is_visible()  # its launcher may cancel it while queued
        wait = page.locator(".job-progress [data-field=wait]")
        assert "no worker consumes the gpu queue" in wait.inner_text() and "waiting for" in wait.inner_text()
        shot(page, "07-run-waits-with-no-worker")
        sparse = launch_training(page, live_server, name="walk-sparse", reward="sparse", model=str(tiny_model))
        assert "no worker consumes the gpu queue" in page.locator(".job-progress [data-field=wait]").inner_text()
        page.goto(f"{live_server.url}/")
        assert "gpu" in page.locator("#unserved-queues").inner_text()
        shot(page, "08-dashboard-no-worker")
    assert dense.config["reward"] == "dense" and sparse.config["reward"] == "sparse"
    # The two configs differ in the reward scheme alone (their names and output folders aside).
    differing = {key for key in dense.config if dense.config[key] != sparse.config.get(key)}
    assert differing <= {"reward", "output_dir", "run_name", "name"}, differing
    # No GPU worker here: the worker's task function trains each run in this process.
    for run_row in (dense, sparse):
        run_training(run_row.id)
        run_row.refresh_from_db()
        assert run_row.state == "succeeded", run_row.error

    # 6. The dense run's page: every curve drawn, its one step, its checkpoint, its episodes.
    page.goto(f"{live_server.url}/training/{dense.id}/")
    assert wait_for_job_state(page, ".job-progress [data-field=state]", timeout_s=30) == "succeeded"
    for name in ("reward", "rates", "loss", "timing"):
        curve = page.locator(f"#{name}-curve")
        curve.locator(".main-svg").first.wait_for(state="attached", timeout=15000)
        assert curve.locator(".trace").count() >= 1, name
    steps = page.locator("#steps tbody tr")
    assert steps.count() == 1
    metric = dense.metrics.get().metrics
    assert steps.first.locator("td").all_inner_texts()[1] == f"{metric['reward_mean']:.3f} ± {metric['reward_std']:.3f}"
    assert page.locator("#reward-curve .scatterlayer .point").count() == 1  # one step, one marker
    assert page.locator("button:has-text('Cancel run')").count() == 0  # a finished run has nothing to cancel
    checkpoint = dense.checkpoints.get()
    assert f"hf:{checkpoint.path}" in page.locator("#checkpoints").inner_text()
    assert page.locator("#checkpoints button:has-text('Start a rollout batch')").is_visible()
    with page.expect_download() as download:
        page.click("#steps a:has-text('JSONL')")
    assert len(open(download.value.path(), encoding="utf-8").read().splitlines()) == 2  # one group of two
    shot(page, "09-dense-run")

    # 7. Both runs on one chart, the one differing setting listed.
    page.click("#flow-nav >> text=Training")
    assert "succeeded" in page.locator("#training-runs >> tr:has-text('walk-sparse')").inner_text()
    page.check(f"input[name=runs][value='{dense.id}']")
    page.check(f"input[name=runs][value='{sparse.id}']")
    page.click("text=Compare the ticked runs")
    page.wait_for_url("**/training/compare/**")
    differences = page.locator("#differences").inner_text()
    assert "reward" in differences and "sparse" in differences and "dense" in differences
    page.wait_for_selector("#reward-curve .main-svg")
    legend = sorted(page.locator("#reward-curve .legendtext").all_text_contents())
    assert legend == sorted([f"#{dense.id} walk-dense", f"#{sparse.id} walk-sparse"])
    shot(page, "10-compare")

    # 8. A step's groups, each sample with its reward and its advantage within the group.
    page.goto(f"{live_server.url}/training/{dense.id}/")
    page.locator("#steps >> text=groups and advantages").first.click()
    page.wait_for_url("**/steps/1/")
    assert page.locator("#group-1 td.advantage").count() == 2
    assert all(text.strip() for text in page.locator("#group-1 td.advantage").all_inner_texts())
    shot(page, "11-step-advantages")

    # 9. A viewer reads the set and the run: no launch links, no controls, no hidden values anywhere.
    viewer = login_as("viewer")
    viewer.goto(f"{live_server.url}/task-sets/{SET}/")
    assert viewer.locator("#set-actions").count() == 0 and viewer.locator("#launch-rollouts").count() == 0
    assert viewer.locator("#set-audit").is_visible()
    shot(viewer, "12-viewer-set")
    viewer.goto(f"{live_server.url}/training/{dense.id}/")
    viewer.locator("#reward-curve .main-svg").first.wait_for(state="attached", timeout=15000)
    assert viewer.locator("#checkpoints button").count() == 0 and viewer.locator("form.cancel-form").count() == 0
    assert "Use it" not in viewer.locator("#checkpoints thead").inner_text()
    seen = [viewer.content(), viewer.request.get(f"{live_server.url}/training/{dense.id}/metrics.json").text(),
            viewer.request.get(f"{live_server.url}/training/{dense.id}/steps/1/trajectories.jsonl").text()]
    viewer.goto(f"{live_server.url}/training/")
    assert viewer.locator("#training-form").count() == 0
    seen.append(viewer.content())
    for task in pending:
        for secret in hidden_values(task):
            assert not any(secret in text for text in seen), f"a viewer reads {secret!r} of {task.task_id}"

    # 10. Withdraw an approved task from the set's page: back to review, with the reason in its audit trail.
    withdrawn = pending[1].task_id
    page.goto(f"{live_server.url}/task-sets/{SET}/")
    page.click(f"#set-task-table >> text={withdrawn}")
    page.wait_for_url(f"**/tasks/{withdrawn}/")
    assert "No rollouts on this task yet." not in page.locator("#rollout-stats").inner_text()
    page.fill("#reopen-form textarea[name=reason]", WITHDRAW_REASON)
    page.click("#reopen-form button[type=submit]")
    page.wait_for_url(f"**/tasks/{withdrawn}/#review")
    assert "pending review" in page.locator("#review").inner_text()
    assert WITHDRAW_REASON in page.locator("#audit-history").inner_text()
    shot(page, "13-task-withdrawn")
    page.goto(f"{live_server.url}/task-sets/{SET}/")
    assert "1 task no longer approved" in page.locator("#set-withdrawn").inner_text()
    shot(page, "14-set-after-withdrawal")
