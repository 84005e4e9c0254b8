"""The sampling schedule (Exploratory Annealed Decoding) on every studio surface: rollout batches, campaigns and
training runs take it from their forms and APIs, store it as the engine checked it, refuse a bad key by name, and a
batch samples with it."""

from __future__ import annotations

import pytest

from training_app.models import EvalCampaign, RolloutBatch, TrainingRun
from training_app.rollouts import services as rollout_services

ANNEALED = {"temperature_schedule": "annealed", "temperature_max": 1.5, "temperature_min": 0.2}
# Every key but the ones given keeps the engine's default (EAD's paper values).
STORED = ANNEALED | {"anneal_decay": 1000.0, "anneal_decay_growth": 5.0, "anneal_skip_tokens": 10,
                     "anneal_scope": "reply"}
BAD = [({"temperature_min": 2.0}, "temperature_min", "above temperature_max"),
       ({"anneal_scope": "turn"}, "anneal_scope", "turn")]

BATCH_API = {"task_set": "web-set", "scaffold": "react", "policy": "baseline", "samples": 1}
BATCH_FORM = BATCH_API | {"concurrency": 1, "feedback": "score", "max_turns": 15}
CAMPAIGN_API = {"task_set": "web-set", "policies": ["baseline"], "scaffolds": ["react"], "seeds": 1}
CAMPAIGN_FORM = CAMPAIGN_API | {"policies": "baseline", "baseline": "", "feedback": "score", "max_turns": 3}


@pytest.mark.parametrize("url, body", [("/api/rollout-batches/", BATCH_API), ("/api/campaigns/", CAMPAIGN_API)])
@pytest.mark.parametrize("change, key, words", BAD)
def test_api_refuses_a_bad_schedule_key_by_name(api_for, task_set, url, body, change, key, words):
    response = api_for("curator").post(url, body | {"schedule": ANNEALED | change}, format="json")
    assert response.status_code == 400, response.content
    assert words in response.json()["schedule"][key][0], response.json()
    assert not RolloutBatch.objects.exists() and not EvalCampaign.objects.exists()


@pytest.mark.parametrize("url, body", [("/rollouts/", BATCH_FORM), ("/campaigns/", CAMPAIGN_FORM)])
@pytest.mark.parametrize("change, key, words", BAD)
def test_form_refuses_a_bad_schedule_key_on_its_field(client_for, task_set, url, body, change, key, words):
    response = client_for("curator").post(url, body | ANNEALED | change)
    assert response.status_code == 400
    assert words in response.context["form"].errors[key][0], response.context["form"].errors
    groups = {title: is_open for title, is_open, _ in response.context["form"].groups()}
    assert groups["Sampling schedule"] is True  # opened, so the error shows
    assert not RolloutBatch.objects.exists() and not EvalCampaign.objects.exists()


def test_campaign_stores_the_checked_schedule(api_for, client_for, task_set, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        created = api_for("curator").post("/api/campaigns/", CAMPAIGN_API | {"schedule": ANNEALED}, format="json")
        constant = client_for("curator").post("/campaigns/", CAMPAIGN_FORM)
    assert created.status_code == 201 and created.json()["spec"]["schedule"] == STORED
    assert constant.status_code == 302 and EvalCampaign.objects.order_by("id").last().spec["schedule"] == {}
    page = client_for("viewer").get(f"/campaigns/{created.json()['id']}/").content.decode()
    assert 'id="sampling-schedule"' in page and "from 1.5 down to 0.2" in page


def test_batch_samples_with_its_schedule(client_for, api_for, task_set, monkeypatch,
                                         django_capture_on_commit_callbacks):
    """The form's schedule is stored and reaches the episodes' sampling; temperature and max_tokens stay as they
    were (the baseline ignores temperatures, so the engine's EpisodeConfig is read as run_batch gets it)."""
    import sandmle.episodes.runner

    seen = []
    run_batch = sandmle.episodes.runner.run_batch
    monkeypatch.setattr(sandmle.episodes.runner, "run_batch", lambda *args, **kwargs: seen.append(kwargs["config"]) or
                        run_batch(*args, **kwargs))
    with django_capture_on_commit_callbacks(execute=False):
        launched = client_for("curator").post("/rollouts/", BATCH_FORM | ANNEALED | {"anneal_scope": "episode"})
        api = api_for("curator").post("/api/rollout-batches/", BATCH_API | {"schedule": ANNEALED}, format="json")
    assert launched.status_code == 302 and api.status_code == 201 and api.json()["schedule"] == STORED
    batch = RolloutBatch.objects.order_by("id").first()
    assert batch.schedule == STORED | {"anneal_scope": "episode"}
    assert rollout_services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    assert batch.state == "succeeded", batch.error
    (sampling,) = [config.sampling for config in seen]
    assert (sampling.ead, sampling.ead_tau_max, sampling.ead_tau_min, sampling.ead_scope) == (True, 1.5, 0.2, "episode")
    assert (sampling.temperature, sampling.max_tokens) == (1.0, 1024)
    page = client_for("viewer").get(f"/rollouts/{batch.id}/").content.decode()
    assert 'id="sampling-schedule"' in page and "restarted every episode" in page


def test_training_takes_the_schedule_from_the_form_and_the_api(client_for, api_for, task_set, settings,
                                                               django_capture_on_commit_callbacks):
    from tests.checkpoint_dirs import checkpoint_dir

    good = {"task_set": "web-set", "kind": "grpo", "model": checkpoint_dir(settings.DATA_DIR), "steps": 1,
            "group_size": 2, "tasks_per_step": 1, "max_turns": 1, "max_tokens": 8}
    api = api_for("curator")
    for change, key, words in BAD:
        refused = api.post("/api/training-runs/", good | ANNEALED | change, format="json")
        assert refused.status_code == 400 and words in refused.json()[key][0], refused.content
        page = client_for("curator").post("/training/", good | ANNEALED | change)
        assert page.status_code == 400 and words in page.context["form"].errors[key][0]
    assert not TrainingRun.objects.exists()
    groups = {title: [field.name for field in fields] for title, _, fields in page.context["form"].groups()}
    assert groups["Sampling schedule"][:2] == ["temperature_schedule", "temperature_max"]
    assert groups["Rollout mode and importance weights"][:2] == ["rollout_mode", "max_staleness"]
    with django_capture_on_commit_callbacks(execute=False):
        created = api.post("/api/training-runs/", good | ANNEALED, format="json")
    assert created.status_code == 201, created.content
    assert {key: TrainingRun.objects.get().config[key] for key in STORED} == STORED
