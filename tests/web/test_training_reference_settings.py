"""The reference trainer's settings in the studio: the launch form and the API refuse bad values by field (400, nothing
created), take good ones into the run's config, and the run and step pages show what the run trained with."""

from __future__ import annotations

from tests.checkpoint_dirs import checkpoint_dir
from tests.stored_runs import record, stored_run
from training_app.models import TrainingRun

BAD = {"loss_type": "ppo", "importance_sampling_cap": 1, "mask_step_timeout_share": 1.5, "masked_in_baseline": "all",
       "loss_normalizer": "episodes"}


def test_launch_form_refuses_each_bad_setting_next_to_its_field(client_for, task_set, settings):
    body = {"task_set": task_set.name, "kind": "grpo", "model": f"hf:{checkpoint_dir(settings.DATA_DIR)}"} | BAD
    response = client_for("curator").post("/training/", body)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert set(BAD) <= set(errors), errors
    assert errors["importance_sampling_cap"] == ["1.0 must be above 1.0"]
    assert errors["mask_step_timeout_share"] == ["1.5 is above the maximum 1.0"]
    assert errors["loss_normalizer"] == ["expected trained or a positive number (the release's 256), not 'episodes'"]
    html = response.content.decode()
    assert "reference: grpo (verl&#x27;s loss_agg_mode seq-mean-token-mean" in html  # the reference beside the field
    assert not TrainingRun.objects.exists()


def test_api_refuses_bad_settings_by_key_and_stores_good_ones(api_for, client_for, task_set, settings,
                                                              django_capture_on_commit_callbacks):
    api = api_for("curator")
    body = {"task_set": task_set.name, "model": f"hf:{checkpoint_dir(settings.DATA_DIR)}", "steps": 1}
    for key, value in BAD.items():
        refused = api.post("/api/training-runs/", body | {key: value}, format="json")
        assert refused.status_code == 400 and list(refused.json()) == [key], refused.json()
    assert not TrainingRun.objects.exists()
    chosen = {"loss_type": "dapo", "importance_sampling": "sequence_mask", "importance_sampling_cap": 3.0,
              "masked_in_baseline": "exclude", "mask_step_timeout_share": 1.0, "weight_decay": 0.0}
    with django_capture_on_commit_callbacks(execute=False):
        made = api.post("/api/training-runs/", body | chosen, format="json")
    assert made.status_code == 201, made.json()
    assert {key: made.json()["config"][key] for key in chosen} == chosen
    page = client_for("viewer").get(f"/training/{made.json()['id']}/").content.decode()
    for key, value in chosen.items():
        assert key in page and str(value) in page, key
    # The release's fixed normalizer, sent as the form's text box and the API's string field send it.
    with django_capture_on_commit_callbacks(execute=False):
        fixed = api.post("/api/training-runs/", body | {"loss_normalizer": "256"}, format="json")
    assert fixed.status_code == 201 and fixed.json()["config"]["loss_normalizer"] == 256.0, fixed.json()


def test_step_page_counts_a_masked_episode_in_its_group_under_the_reference_rule(client_for, task_set, users,
                                                                                tmp_path):
    timed_out = record("t1", "g1", 0, 0.05, 0.0, "time_budget")  # it took a turn (it has a token record)
    records = {1: [timed_out, record("t1", "g1", 1, 0.3, 0.0), record("t1", "g1", 2, 0.8, 0.0),
                   record("t1", "g1", 3, 0.3, 0.0)]}
    run = stored_run(task_set, users, tmp_path, name="reference", reward="dense", records=records,
                     lines=[{"step": 1, "reward_mean": 0.4, "masked_episodes": 1}])
    response = client_for("viewer").get(f"/training/{run.id}/steps/1/")
    samples = response.context["groups"][0]["samples"]
    assert samples[0]["reward"] == 0.05 and samples[0]["advantage"] is None and samples[0]["masked"] == "time_budget"
    assert round(samples[1]["advantage"], 2) == -0.20  # -0.58 with the timeout left out of the baseline
    assert "still count in their group" in response.content.decode()
