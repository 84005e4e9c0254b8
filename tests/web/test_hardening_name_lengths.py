"""Names people give are bounded (issue 65): a 100,000-character name was accepted; every user-named field of a
launch or save (training runs and their tracker run_name, rollout batches, campaigns, latency studies, task sets and
their descriptions, saved review views, adaptive frontier sets) is a 400 naming the field, through the API and the
form, and nothing is stored."""

from __future__ import annotations

import pytest

from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import EvalCampaign, LatencyStudy, RolloutBatch, TrainingRun

HUGE = "n" * 100_000


@pytest.fixture
def model_dir(settings) -> str:
    return checkpoint_dir(settings.DATA_DIR)


def _api_launches(model_dir: str) -> list[tuple[str, dict, str, type]]:
    return [
        ("/api/training-runs/", {"task_set": "web-set", "model": model_dir, "name": HUGE}, "name", TrainingRun),
        ("/api/training-runs/", {"task_set": "web-set", "model": model_dir, "run_name": HUGE}, "run_name",
         TrainingRun),
        ("/api/rollout-batches/", {"task_set": "web-set", "scaffold": "react", "policy": "baseline", "samples": 1,
                                   "name": HUGE}, "name", RolloutBatch),
        ("/api/campaigns/", {"task_set": "web-set", "policies": ["baseline"], "scaffolds": ["react"], "seeds": 1,
                             "name": HUGE}, "name", EvalCampaign),
        ("/api/latency-studies/", {"task": "no-such-task", "name": HUGE}, "name", LatencyStudy),
    ]


def test_a_huge_name_is_a_400_naming_the_field_in_every_launch_api(api_for, task_set, model_dir):
    for path, body, field, model in _api_launches(model_dir):
        response = api_for("curator").post(path, body, format="json")
        assert response.status_code == 400 and field in response.json(), (path, response.content[:300])
        assert not model.objects.exists(), path


def test_a_huge_task_set_name_or_description_is_a_400(api_for, client_for, task_set):
    ids = list(task_set.tasks.values_list("task_id", flat=True))
    for body, field in (({"name": "n" * 100, "task_ids": ids}, "name"),
                        ({"name": "fine-set", "task_ids": ids, "description": HUGE}, "description")):
        response = api_for("curator").post("/api/task-sets/", body, format="json")
        assert response.status_code == 400 and field in response.json(), response.content[:300]
    edit = api_for("curator").patch(f"/api/task-sets/{task_set.name}/", {"description": HUGE}, format="json")
    assert edit.status_code == 400 and "description" in edit.json()
    task_set.refresh_from_db()
    assert task_set.description == ""


def test_a_huge_saved_view_name_is_a_400(api_for, db):
    response = api_for("reviewer").post("/api/review/saved-views/", {"name": HUGE, "filters": {}}, format="json")
    assert response.status_code == 400 and "name" in response.json()


@pytest.mark.parametrize("path, body", [
    ("/training/", {"task_set": "web-set", "kind": "grpo", "name": HUGE, "lora_r": ""}),
    ("/rollouts/", {"task_set": "web-set", "scaffold": "react", "policy": "baseline", "samples": 1, "name": HUGE}),
    ("/campaigns/", {"task_set": "web-set", "policies": "baseline", "scaffolds": "react", "seeds": 1, "name": HUGE}),
])
def test_a_huge_name_is_refused_by_the_forms(path, body, client_for, task_set, model_dir):
    response = client_for("curator").post(path, body | {"model": model_dir})
    assert response.status_code == 400, (path, response.status_code)
    assert "name" in response.context["form"].errors, response.context["form"].errors
    assert not (TrainingRun.objects.exists() or RolloutBatch.objects.exists() or EvalCampaign.objects.exists())
