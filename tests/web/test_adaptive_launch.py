"""Adaptive environments launched from the studio (issue 56): the form and the API offer the engine's adaptive keys,
validated by the one validator (load_train_config), each refusal named by its key; an accepted launch keeps them in
the run's config."""

from __future__ import annotations

import pytest

from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import TrainingRun

ADAPTIVE = {"task_set": "web-set", "kind": "grpo", "steps": 8, "group_size": 2, "tasks_per_step": 1,
            "max_turns": 1, "environments": "adaptive", "frontier_evidence": 2, "adaptive_review": "hold"}


@pytest.fixture
def body(settings) -> dict:
    return ADAPTIVE | {"model": checkpoint_dir(settings.DATA_DIR)}


def test_the_form_shows_the_adaptive_group_and_its_sentence(client_for, task_set):
    page = client_for("curator").get("/training/").content.decode()
    assert "Adaptive environments: a task the policy always or never solves is swapped" in page
    for key in ("environments", "frontier_band", "level_range", "adaptive_review", "successor_timeout_s"):
        assert f'name="{key}"' in page


def test_the_form_launches_an_adaptive_run(client_for, task_set, body, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for("curator").post("/training/", body | {"frontier_band": "0.25, 0.75",
                                                                    "level_range": "-1, 2", "lora_r": ""})
    assert response.status_code == 302, response.context["form"].errors
    config = TrainingRun.objects.get().config
    assert config["environments"] == "adaptive" and config["adaptive_review"] == "hold"
    assert config["frontier_band"] == [0.25, 0.75] and config["level_range"] == [-1, 2]


@pytest.mark.parametrize("change, field, words", [
    ({"frontier_band": "0.8, 0.2"}, "frontier_band", "inverted"),
    ({"frontier_band": "low, high"}, "frontier_band", "[LOW, HIGH]"),
    ({"level_range": "0, 99"}, "level_range", "beyond the level table"),
    ({"adaptive_review": "maybe"}, "adaptive_review", "not one of the available choices"),
    ({"steps": 2}, "steps", "too few for adaptive environments"),
])
def test_the_form_refuses_each_bad_adaptive_setting_at_its_field(client_for, task_set, body, change, field, words):
    response = client_for("curator").post("/training/", body | {"lora_r": ""} | change)
    assert response.status_code == 400
    errors = response.context["form"].errors.get(field, [])
    assert any(words in message for message in errors), response.context["form"].errors
    assert not TrainingRun.objects.exists()


@pytest.mark.parametrize("change, field", [
    ({"frontier_band": [0.9, 0.1]}, "frontier_band"), ({"frontier_band": [0.5]}, "frontier_band"),
    ({"level_range": [3, 1]}, "level_range"), ({"environments": "wild"}, "environments"),
    ({"max_pending_successors": 0}, "max_pending_successors"), ({"steps": 2}, "steps"),
])
def test_the_api_refuses_each_bad_adaptive_setting_by_name(api_for, task_set, body, change, field):
    response = api_for("curator").post("/api/training-runs/", body | change, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not TrainingRun.objects.exists()


def test_the_api_launches_an_adaptive_run(api_for, task_set, body, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = api_for("curator").post("/api/training-runs/", body | {"frontier_band": [0.1, 0.9]}, format="json")
    assert response.status_code == 201, response.json()
    config = response.json()["config"]
    assert config["environments"] == "adaptive" and config["frontier_band"] == [0.1, 0.9]
