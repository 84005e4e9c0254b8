"""An episode's budgets on the studio's rollout and campaign surfaces: every key of the engine's one declaration
(sandmle/episodes/budget.py) is a field of both forms and both APIs under the same name, a value outside the engine's
range is refused on its own field, and a batch runs with the budgets it stored."""

from __future__ import annotations

import pytest

from sandmle.episodes.budget import BUDGET_DEFAULTS, BUDGET_KEYS
from training_app.models import EvalCampaign, RolloutBatch
from training_app.rollouts import services as rollout_services

BATCH_API = {"task_set": "web-set", "scaffold": "react", "policy": "baseline", "samples": 1}
BATCH_FORM = BATCH_API | {"concurrency": 1, "feedback": "score"}
CAMPAIGN_API = {"task_set": "web-set", "policies": ["baseline"], "scaffolds": ["react"], "seeds": 1}
CAMPAIGN_FORM = CAMPAIGN_API | {"policies": "baseline", "baseline": "", "feedback": "score"}


def test_every_budget_is_a_field_of_both_forms_and_both_apis(client_for):
    from training_app.campaigns.api import CampaignInput
    from training_app.rollouts.serializers import RolloutBatchInput

    for url in ("/rollouts/", "/campaigns/"):
        form = client_for("curator").get(url).context["form"]
        assert set(BUDGET_KEYS) <= set(form.fields), url
        assert {key: form.fields[key].initial for key in BUDGET_KEYS} == BUDGET_DEFAULTS
    for serializer in (RolloutBatchInput(), CampaignInput()):
        assert {key: serializer.fields[key].default for key in BUDGET_KEYS} == BUDGET_DEFAULTS


@pytest.mark.parametrize("url, body", [("/api/rollout-batches/", BATCH_API), ("/api/campaigns/", CAMPAIGN_API)])
@pytest.mark.parametrize("key, value", [("max_turns", 500), ("time_budget_s", 0), ("max_tokens", -1)])
def test_api_refuses_a_budget_outside_the_engines_range_by_name(api_for, task_set, url, body, key, value):
    response = api_for("curator").post(url, body | {key: value}, format="json")
    assert response.status_code == 400 and list(response.json()) == [key], response.content
    assert not RolloutBatch.objects.exists() and not EvalCampaign.objects.exists()


@pytest.mark.parametrize("url, body", [("/rollouts/", BATCH_FORM), ("/campaigns/", CAMPAIGN_FORM)])
def test_form_refuses_a_budget_outside_the_engines_range_on_its_field(client_for, task_set, url, body):
    response = client_for("curator").post(url, body | {"step_timeout_s": "0"})
    assert response.status_code == 400 and list(response.context["form"].errors) == ["step_timeout_s"]
    assert not RolloutBatch.objects.exists() and not EvalCampaign.objects.exists()


def test_a_campaign_stores_every_budget_under_its_key(api_for, task_set, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        created = api_for("curator").post("/api/campaigns/", CAMPAIGN_API | {"step_timeout_s": 30,
                                                                             "context_tokens": 4096}, format="json")
    assert created.status_code == 201, created.content
    spec = EvalCampaign.objects.get().spec
    assert {key: spec[key] for key in BUDGET_KEYS} == BUDGET_DEFAULTS | {"step_timeout_s": 30.0,
                                                                          "context_tokens": 4096}


def test_a_batch_runs_with_the_budgets_it_stored(client_for, task_set, monkeypatch,
                                                 django_capture_on_commit_callbacks):
    import sandmle.episodes.runner

    seen = []
    run_batch = sandmle.episodes.runner.run_batch
    monkeypatch.setattr(sandmle.episodes.runner, "run_batch", lambda *args, **kwargs: seen.append(kwargs["config"]) or
                        run_batch(*args, **kwargs))
    given = {"max_turns": "2", "time_budget_s": "120", "max_tokens": "64", "temperature": ""}  # blank: the default
    with django_capture_on_commit_callbacks(execute=False):
        launched = client_for("curator").post("/rollouts/", BATCH_FORM | given)
    assert launched.status_code == 302
    batch = RolloutBatch.objects.get()
    assert batch.budgets == BUDGET_DEFAULTS | {"max_turns": 2, "time_budget_s": 120.0, "max_tokens": 64}
    assert rollout_services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    assert batch.state == "succeeded", batch.error
    (config,) = seen
    assert (config.max_turns, config.time_budget_s, config.sampling.max_tokens, config.sampling.temperature) == (
        2, 120.0, 64, 1.0)
    trajectory = batch.trajectories.first()
    page = client_for("viewer").get(f"/trajectories/{trajectory.id}/").content.decode()
    assert f"{trajectory.n_turns} of 2 turns" in page  # the bound the batch stored
