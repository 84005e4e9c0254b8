"""Rollout batches in the studio: launch validation, the batch page, the trajectory page, side by side, JSONL export."""

from __future__ import annotations

import json
import re

import pytest

from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import RolloutBatch
from training_app.rollouts import services


@pytest.mark.parametrize("field, value, words", [
    ("scaffold", "langchain", "not a valid choice"),
    ("policy", "gpt", "expected baseline"),
    ("policy", "openai:model@ftp://x", "openai:MODEL@"),
    ("samples", 0, "greater than or equal"),
    ("task_set", "missing", "no task set"),
    ("scaffold_options", {"num_drafts": 3}, "unknown scaffold option 'num_drafts' for react"),
    ("scaffold_options", {"dialect": "klingon"}, "scaffold option 'dialect' of react: 'klingon' is not one of"),
])
def test_bad_launch_is_a_field_error(api_for, task_set, field, value, words):
    body = {"task_set": "web-set", "scaffold": "react", "policy": "baseline", "samples": 1} | {field: value}
    response = api_for("curator").post("/api/rollout-batches/", body, format="json")
    assert response.status_code == 400 and words in response.json()[field][0]
    assert not RolloutBatch.objects.exists()


def test_viewer_cannot_launch(api_for, task_set):
    body = {"task_set": "web-set", "scaffold": "react", "policy": "baseline"}
    assert api_for("viewer").post("/api/rollout-batches/", body, format="json").status_code == 403


def test_hf_policy_goes_to_the_gpu_queue(users, task_set, settings, django_capture_on_commit_callbacks):
    policy = f"hf:{checkpoint_dir(settings.DATA_DIR)}"  # under the model roots' models/
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy=policy, user=users["curator"])
    assert batch.queue == "gpu" and len(callbacks) == 1


def test_batch_trajectory_compare_and_export_pages(client_for, finished_batch):
    client = client_for("viewer")
    assert finished_batch.state == "succeeded", finished_batch.error
    page = client.get(f"/rollouts/{finished_batch.id}/")
    assert page.status_code == 200 and b"compare side by side" in page.content
    # A scripted baseline makes no model tokens: its generation row gives calls, not a tokens-per-second figure.
    generation = re.search(r'<td id="batch-generation">(.*?)</td>', page.content.decode()).group(1)
    assert generation.startswith("policy: ") and "tokens/s" not in generation, generation
    trajectory = finished_batch.trajectories.first()
    detail = client.get(f"/trajectories/{trajectory.id}/")
    assert detail.status_code == 200 and b"turn 1" in detail.content and b"dense" in detail.content
    compare = client.get(f"/rollouts/{finished_batch.id}/compare/{trajectory.task.task_id}/")
    assert compare.status_code == 200 and compare.content.count(b"sample #") == 2
    export = client.get(f"/rollouts/{finished_batch.id}/trajectories.jsonl")
    lines = b"".join(export.streaming_content).decode().splitlines()
    assert len(lines) == finished_batch.trajectories.count()
    assert {"turns", "grade", "rewards", "termination"} <= set(json.loads(lines[0]))


def test_batch_with_scaffold_options_from_the_page(client_for, task_set, django_capture_on_commit_callbacks):
    form = {"task_set": "web-set", "scaffold": "react", "policy": "baseline", "samples": 1, "concurrency": 1,
            "feedback": "score", "max_turns": 15}
    curator = client_for("curator")
    refused = curator.post("/rollouts/", form | {"scaffold_options": "dialect=sandmle\nnum_drafts=2"})
    assert refused.status_code == 400
    assert "unknown scaffold option 'num_drafts' for react" in refused.context["form"].errors["scaffold_options"][0]
    with django_capture_on_commit_callbacks(execute=False):
        launched = curator.post("/rollouts/", form | {"scaffold_options": "dialect=sandmle\nmax_turns=4"})
    assert launched.status_code == 302
    batch = RolloutBatch.objects.get()
    assert batch.scaffold_options == {"dialect": "sandmle", "max_turns": 4}
    assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    assert batch.state == "succeeded", batch.error
    record = batch.trajectories.first().record
    assert record["extra"]["scaffold_options"]["dialect"] == "sandmle" and record["grade"]["valid_submission"]
    assert any(t["kind"] == "score" for t in record["turns"])
    page = client_for("viewer").get(f"/rollouts/{batch.id}/").content.decode()
    assert '<span id="scaffold-options">options dialect=sandmle, max_turns=4</span>' in page


def test_redelivered_batch_does_nothing(finished_batch):
    assert services.rollout_batch_execute(batch_id=finished_batch.id, worker="again") is False


def test_openai_batch_uses_the_deployments_key_variable(users, task_set, settings, monkeypatch,
                                                        django_capture_on_commit_callbacks):
    """A batch with an OpenAI-compatible policy reaches the endpoint with the key the deployment names."""
    from tests.chat_server import ChatServer

    settings.SANDMLE_LLM_KEY_ENV = "STUDIO_POLICY_KEY"
    settings.SANDMLE_LLM_ALLOWED_HOSTS = ["127.0.0.1"]  # the local chat server
    monkeypatch.setenv("STUDIO_POLICY_KEY", "sk-studio-test")
    answer = "<think>copy the sample</think><python>import shutil; shutil.copy('/public/sample_submission.csv', " \
             "'submission.csv')</python>"
    with ChatServer(reply_fn=lambda request: answer if len(request["messages"]) <= 2 else
                    "<think>done</think><answer>submission.csv</answer>") as server:
        with django_capture_on_commit_callbacks(execute=False):
            batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy=f"openai:m@{server.base_url}",
                                                  samples=1, max_turns=3, user=users["curator"])
        assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    assert batch.state == "succeeded", batch.error
    assert {request["_headers"]["authorization"] for request in server.requests} == {"Bearer sk-studio-test"}
    assert batch.summary["valid_rate"] == 1.0
    assert "sk-studio-test" not in json.dumps(list(batch.trajectories.values_list("record", flat=True)))


@pytest.mark.torch
def test_the_batch_page_names_the_engine_its_generation_took(client_for, users, task_set, settings, monkeypatch,
                                                            django_capture_on_commit_callbacks):
    """An `hf:` checkpoint's batch says which path generated it (here the batched token loop; `vllm` on a GPU
    worker with vLLM: tests/engine/test_vllm_engine_policy.py) with its calls and turns per call."""
    pytest.importorskip("torch")
    from pathlib import Path

    from sandmle.rl.tiny_model import build_tiny_checkpoint

    monkeypatch.setenv("SANDMLE_HF_ENGINE", "hf")
    checkpoint = build_tiny_checkpoint(Path(settings.DATA_DIR) / "models" / "tiny")
    with django_capture_on_commit_callbacks(execute=False):
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy=f"hf:{checkpoint}",
                                              samples=2, concurrency=2, max_turns=1, user=users["curator"])
    assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    assert batch.state == "succeeded", batch.error
    assert batch.summary["engine"] == "hf" and batch.summary["mean_batch_size"] > 1.0
    page = client_for("viewer").get(f"/rollouts/{batch.id}/").content.decode()
    assert f'<td id="batch-generation">hf: {batch.summary["generate_calls"]} calls' in page and " tokens/s;" in page
