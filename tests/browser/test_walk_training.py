"""Walk: a curator launches a one-step GRPO run of a tiny random Qwen3 from the training page, the worker's task
function trains it for real, and curator and viewer read its curves, steps, checkpoints and trajectories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.conftest import wait_for_job_state
from tests.hidden_values import hidden_values

pytestmark = [pytest.mark.browser, pytest.mark.torch, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer Qwen3 with random weights in save_pretrained form: the only model a CPU trains in seconds."""
    pytest.importorskip("torch").set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from django.conf import settings

    from sandmle.rl.tiny_model import build_tiny_checkpoint

    # Under the data directory's models/: a curator may train only from the model roots (training_app/shared/model_roots.py).
    return build_tiny_checkpoint(Path(settings.DATA_DIR) / "models" / tmp_path_factory.mktemp("tiny-qwen3").name)


def fill_launch_form(page, *, model: str) -> None:
    """What a user types to get the smallest real run: one step, two episodes of one turn on one task."""
    form = page.locator("#training-form")
    form.locator("input[name=name]").fill("walk-smoke")
    form.locator("select[name=task_set]").select_option("web-set")
    form.locator("select[name=kind]").select_option("grpo")
    form.locator("input[name=model]").fill(model)
    for name, value in {"steps": "1", "group_size": "2", "tasks_per_step": "1", "learning_rate": "0.0001",
                        "max_turns": "1", "max_response_tokens": "8", "save_every": "1"}.items():
        form.locator(f"input[name={name}]").fill(value)
    form.locator("select[name=reward]").select_option("dense")


def test_curator_launches_and_reads_a_training_run_and_a_viewer_sees_no_controls(login_as, live_server, task_set,
                                                                                  tiny_model, shot):
    from training_app.models import TrainingRun
    from workers.training import run_training

    curator = login_as("curator")
    curator.click("#flow-nav >> text=Training")
    assert "No training runs yet." in curator.locator("#training-runs").inner_text()
    fill_launch_form(curator, model=str(tiny_model))
    shot(curator, "01-launch-form")
    curator.locator("#training-form button[type=submit]").click()
    curator.wait_for_url("**/training/*/")
    run = TrainingRun.objects.get()
    assert run.queue == "gpu" and run.smoke_model and run.config["group_size"] == 2
    assert curator.locator("#smoke-notice").is_visible()
    assert curator.locator("button:has-text('Cancel run')").is_visible()  # its launcher may cancel it while queued
    assert "No steps yet" in curator.locator("#steps").inner_text()
    shot(curator, "02-run-queued")

    viewer = login_as("viewer")
    viewer.goto(f"{live_server.url}/training/{run.id}/")
    assert viewer.locator("#steps").is_visible()
    assert viewer.locator("button:has-text('Cancel run')").count() == 0
    viewer.goto(f"{live_server.url}/training/")
    assert viewer.locator("#training-form").count() == 0 and "Launch a training run" not in viewer.content()
    assert viewer.locator("#training-runs >> text=walk-smoke").count() == 1

    # No GPU worker here: the worker's task function runs the real trainer in this process (a redelivered message
    # to any session worker finds the row claimed, so exactly one of them trains it).
    run_training(run.id)
    assert wait_for_job_state(curator, ".job-progress [data-field=state]", timeout_s=120) == "succeeded"
    run.refresh_from_db()
    assert run.state == "succeeded", run.error
    checkpoint = run.checkpoints.get()

    for name in ("reward", "rates", "loss", "timing"):
        curve = curator.locator(f"#{name}-curve")
        curve.locator(".main-svg").first.wait_for(state="attached", timeout=15000)
        assert curve.locator(".trace").count() >= 1, name  # plotly drew the step's data, not an empty frame
    reward_points = curator.locator("#reward-curve .scatterlayer .point")
    assert reward_points.count() == 1  # one step, one marker
    assert curator.locator("button:has-text('Cancel run')").count() == 0  # a finished run has nothing to cancel
    steps = curator.locator("#steps tbody tr")
    assert steps.count() == 1
    cells = steps.first.locator("td").all_inner_texts()
    metric = run.metrics.get().metrics
    assert cells[0] == "1" and cells[1] == f"{metric['reward_mean']:.3f} ± {metric['reward_std']:.3f}"
    assert cells[2] == f"{metric['medal_rate']:.2f}" and cells[3] == f"{metric['valid_rate']:.2f}"
    assert curator.locator("#checkpoints tbody tr").count() == 1
    assert f"hf:{checkpoint.path}" in curator.locator("#checkpoints").inner_text()
    assert curator.locator("#checkpoints button:has-text('Start a rollout batch')").is_visible()
    assert curator.locator("#checkpoints button:has-text('Start an evaluation campaign')").is_visible()
    with curator.expect_download() as download:
        curator.click("#steps a:has-text('JSONL')")
    episodes = open(download.value.path(), encoding="utf-8").read().splitlines()
    assert len(episodes) == 2  # group size 2 on one task
    shot(curator, "03-run-succeeded")

    curator.click("#flow-nav >> text=Training")
    assert "succeeded" in curator.locator("#training-runs >> tr:has-text('walk-smoke')").inner_text()
    shot(curator, "04-run-list")

    viewer.goto(f"{live_server.url}/training/{run.id}/")
    viewer.locator("#reward-curve .main-svg").first.wait_for(state="attached", timeout=15000)
    assert viewer.locator("#checkpoints button").count() == 0 and viewer.locator("form.cancel-form").count() == 0
    assert "Use it" not in viewer.locator("#checkpoints thead").inner_text()  # no empty column for a viewer
    shot(viewer, "05-viewer-run")
    seen = [viewer.content(), viewer.request.get(f"{live_server.url}/training/{run.id}/metrics.json").text(),
            viewer.request.get(f"{live_server.url}/training/{run.id}/steps/1/trajectories.jsonl").text()]
    viewer.goto(f"{live_server.url}/training/")
    seen.append(viewer.content())
    for task in task_set.tasks.all():
        for secret in hidden_values(task):
            assert not any(secret in text for text in seen), f"a viewer reads {secret!r} of {task.task_id}"
