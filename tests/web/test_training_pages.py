"""Training runs in the studio: field-level launch refusals, roles, and a real one-step GRPO run of a tiny random
Qwen3 with the tabular reply menu (its replies run code and get graded) through the Celery task function (metric and
checkpoint rows, the run page, its metrics JSON, redelivery)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import TrainingRun
from training_app.runs import services as training_services

GOOD = {"task_set": "web-set", "kind": "grpo", "model": "models/any", "steps": 1, "group_size": 2,
        "tasks_per_step": 1, "learning_rate": 1e-4, "reward": "dense", "max_turns": 1, "max_tokens": 8,
        "lora_r": "", "save_every": 1}


@pytest.fixture
def good(settings) -> dict:
    """A launch the form and the API accept: GOOD with a directory shaped as a checkpoint under the model roots."""
    return GOOD | {"model": checkpoint_dir(settings.DATA_DIR)}


@pytest.mark.parametrize("field, value, words", [
    ("group_size", 1, "below the minimum"),
    ("steps", 0, "below the minimum"),
    ("learning_rate", 2.0, "above the maximum"),
    ("max_turns", 500, "above the maximum"),
    ("reward", "medals", "not one of the available choices"),
    ("steps", "many", "Enter a whole number"),
    ("lora_r", 0, "greater than or equal"),
    ("model", "   ", "This field is required"),
])
def test_bad_launch_is_a_field_error(client_for, task_set, good, field, value, words):
    response = client_for("curator").post("/training/", good | {field: value})
    assert response.status_code == 400
    assert any(words in message for message in response.context["form"].errors.get(field, [])), \
        response.context["form"].errors
    assert not TrainingRun.objects.exists()


def test_api_refuses_unknown_and_out_of_range_settings_by_name(api_for, task_set, good):
    api = api_for("curator")
    body = {key: value for key, value in good.items() if key != "lora_r"}
    unknown = api.post("/api/training-runs/", body | {"warp_speed": 9}, format="json")
    assert unknown.status_code == 400 and "warp_speed" in unknown.json()
    ranged = api.post("/api/training-runs/", body | {"tasks_per_step": 0}, format="json")
    assert ranged.status_code == 400 and "minimum" in ranged.json()["tasks_per_step"][0]
    assert not TrainingRun.objects.exists()


def test_viewer_reads_but_cannot_launch_or_cancel(client_for, users, task_set, good,
                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model=good["model"], steps=1,
                                                    user=users["curator"])
    assert run.queue == "gpu" and run.config["tasks"] and run.config["group_size"] == 4  # the recipe's default
    viewer = client_for("viewer")
    assert viewer.get("/training/").status_code == 200
    assert viewer.post("/training/", good).status_code == 403
    assert viewer.post(f"/training/{run.id}/").status_code == 403
    run.refresh_from_db()
    assert TrainingRun.objects.count() == 1 and not run.cancel_requested
    assert client_for("curator").post(f"/training/{run.id}/").status_code == 302
    run.refresh_from_db()
    assert run.state == "cancelled"


@pytest.fixture
def finished_run(client_for, task_set, tmp_path, settings, django_capture_on_commit_callbacks):
    """A tiny random model's one-step GRPO run, launched from the page and run by the worker's task function."""
    pytest.importorskip("torch").set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from workers.training import run_training

    # Under the data directory's models/: a curator may train only from the model roots (training_app/shared/model_roots.py).
    model = build_tiny_checkpoint(Path(settings.DATA_DIR) / "models" / tmp_path.name, reply_menu=TABULAR_REPLY_MENU)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for("curator").post("/training/", GOOD | {"model": str(model), "name": "smoke",
                                                                    "group_size": 4})
    assert response.status_code == 302, response.context["form"].errors
    assert len(callbacks) == 1
    run = TrainingRun.objects.get()
    assert run.smoke_model
    assert run_training(run.id) is True
    run.refresh_from_db()
    return run


@pytest.mark.torch
def test_real_grpo_step_writes_rows_renders_and_ignores_redelivery(client_for, finished_run):
    from workers.training import run_training

    run = finished_run
    assert run.state == "succeeded", run.error
    metric = run.metrics.get()
    assert metric.step == 1 and {"reward_mean", "loss", "generation_s", "sandbox_s", "update_s", "generate_calls",
                                 "mean_batch_size", "tokens_per_s", "wait_s"} <= set(metric.metrics)
    # The replies ran programs in the sandbox and were graded: some reward, spread within the group, a gradient.
    assert metric.metrics["reward_mean"] >= 0.1 and metric.metrics["sandbox_s"] > 0
    assert metric.metrics["reward_std"] > 0 and metric.metrics["grad_norm"] > 0
    checkpoint = run.checkpoints.get()
    assert checkpoint.step == 1 and os.path.isfile(os.path.join(checkpoint.path, "config.json"))
    viewer = client_for("viewer")
    html = viewer.get(f"/training/{run.id}/").content.decode()
    assert 'id="smoke-notice"' in html and "Reply-menu run:" in html and "which of 3 scripted replies" in html
    assert "vendor/plotly.min.js" in html and 'id="reward_parts-curve"' in html
    assert 'data-figure="reward-figure"' in html and 'data-figure="timing-figure"' in html
    assert 'data-figure="generation-figure"' in html
    assert f"hf:{checkpoint.path}" in html and "Start an evaluation campaign" not in html  # viewers see no buttons
    body = viewer.get(f"/training/{run.id}/metrics.json").json()
    assert body["state"] == "succeeded" and [line["step"] for line in body["steps"]] == [1]
    assert body["checkpoints"] == [{"step": 1, "path": checkpoint.path}] and set(body["figures"]) >= {"reward", "loss"}
    step_file = viewer.get(f"/training/{run.id}/steps/1/trajectories.jsonl")
    assert step_file.status_code == 200 and len(b"".join(step_file.streaming_content).splitlines()) == 4
    assert viewer.get(f"/training/{run.id}/steps/9/trajectories.jsonl").status_code == 404
    curator_html = client_for("curator").get(f"/training/{run.id}/").content.decode()
    assert "Start an evaluation campaign" in curator_html and "Start a rollout batch" in curator_html

    assert run_training(run.id) is False  # a redelivered message finds the row finished
    assert run.metrics.count() == 1 and run.checkpoints.count() == 1


def test_sft_run_needs_the_task_sets_trajectories_and_exports_them(users, task_set, good,
                                                                   django_capture_on_commit_callbacks):
    from sandmle_web.errors import ServiceError

    with pytest.raises(ServiceError) as refused:
        training_services.training_run_create(task_set=task_set, kind="sft", model=good["model"], user=users["curator"])
    assert refused.value.field == "task_set" and not TrainingRun.objects.exists()


def test_sft_run_fine_tunes_on_the_stored_rollouts(users, finished_batch, good, django_capture_on_commit_callbacks):
    import json
    from pathlib import Path

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = training_services.training_run_create(task_set=finished_batch.task_set, kind="sft", model=good["model"],
                                                    steps=1, user=users["curator"])
    assert run.config["kind"] == "sft" and len(callbacks) == 1 and not run.smoke_model
    lines = Path(run.config["dataset"][0]).read_text().splitlines()
    assert lines and all(any(m["role"] == "assistant" for m in json.loads(line)["messages"]) for line in lines)


def test_run_page_links_the_tensorboard_folder_and_serves_its_files_without_links(
        client_for, users, task_set, tmp_path, settings, django_capture_on_commit_callbacks):
    import io
    import tarfile
    from pathlib import Path

    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model=checkpoint_dir(settings.DATA_DIR), steps=1,
                                                    name="tracked",
                                                    report_to=["tensorboard"], user=users["curator"])
    assert run.config["report_to"] == ["tensorboard"] and run.config["run_name"] == "tracked"
    viewer = client_for("viewer")
    assert "written once the run starts" in viewer.get(f"/training/{run.id}/").content.decode()
    assert viewer.get(f"/training/{run.id}/logs/tensorboard.tar.gz").status_code == 404
    logs = Path(run.output_dir) / "tensorboard"
    (logs / "nested").mkdir(parents=True)
    (logs / "events.out.tfevents.1.host").write_bytes(b"event bytes")
    (logs / "nested" / "events.out.tfevents.2.host").write_bytes(b"more")
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the archive")
    (logs / "link.txt").symlink_to(secret)
    (logs / "linked-dir").symlink_to(tmp_path)
    html = viewer.get(f"/training/{run.id}/").content.decode()
    assert f"tensorboard --logdir {logs}" in html and f"/training/{run.id}/logs/tensorboard.tar.gz" in html
    response = viewer.get(f"/training/{run.id}/logs/tensorboard.tar.gz")
    assert response.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(b"".join(response.streaming_content)), mode="r:gz") as tar:
        members = {member.name: member for member in tar.getmembers()}
        assert sorted(members) == ["tensorboard/events.out.tfevents.1.host",
                                   "tensorboard/nested/events.out.tfevents.2.host"]
        assert all(member.isfile() for member in members.values())
        assert tar.extractfile("tensorboard/events.out.tfevents.1.host").read() == b"event bytes"
    assert viewer.get(f"/training/{run.id}/logs/wandb.tar.gz").status_code == 404


def test_api_takes_report_to_and_refuses_an_unknown_tracker(api_for, task_set):
    api = api_for("curator")
    body = {key: value for key, value in GOOD.items() if key != "lora_r"}
    refused = api.post("/api/training-runs/", body | {"report_to": ["mlflow"]}, format="json")
    assert refused.status_code == 400 and "report_to" in refused.json()
    accepted = api.post("/api/training-runs/", body | {"report_to": ["tensorboard"]}, format="json")
    assert accepted.status_code == 201, accepted.json()
    assert TrainingRun.objects.get().config["report_to"] == ["tensorboard"]
