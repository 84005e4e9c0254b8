"""The paper's recipe in the studio: the form starts from a run preset and takes scaffold options, the API takes them
as a mapping and refuses a bad preset, option or dialect by key (400, nothing created), and the run page lists what
the preset set, what the launch changed, and labels a score_answers run "saw test scores"."""

from __future__ import annotations

from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import TrainingRun


def test_the_form_starts_from_a_preset_and_launches_it_with_the_changes(client_for, task_set, settings,
                                                                        django_capture_on_commit_callbacks):
    curator = client_for("curator")
    page = curator.get("/training/?preset=sandmle-paper")
    form = page.context["form"]
    assert form["preset"].value() == "sandmle-paper" and form["feedback"].value() == "score_answers"
    assert form["scaffold_options"].value() == "dialect=sandmle\noutput_lines=20" and form["steps"].value() is None
    assert 'href="?preset=cpu-smoke"' in page.content.decode()
    # What the browser sends: the preset's values as the form shows them, one changed.
    shown = {name: form[name].value() for name in form.fields}
    body = {name: value for name, value in shown.items() if value not in (None, "", [], False)}
    body |= {"task_set": task_set.name, "kind": "grpo", "model": f"hf:{checkpoint_dir(settings.DATA_DIR)}",
             "learning_rate": "2e-6"}
    with django_capture_on_commit_callbacks(execute=False):
        response = curator.post("/training/", body)
    assert response.status_code == 302, response.context["form"].errors if response.context else response
    run = TrainingRun.objects.get()
    assert run.config["preset"] == "sandmle-paper" and run.config["scaffold_options"] == {"dialect": "sandmle",
                                                                                          "output_lines": 20}
    detail = client_for("viewer").get(f"/training/{run.id}/")
    recipe = detail.context["recipe"]
    assert recipe["changed"] == {"learning_rate": {"preset": 1e-6, "run": 2e-6}} and recipe["saw_test_scores"]
    html = detail.content.decode()
    assert 'id="saw-test-scores"' in html and 'id="preset-changes"' in html and "saw test scores" in html
    assert "saw test scores" in client_for("viewer").get("/training/").content.decode()
    assert "saw test scores" in client_for("viewer").get(f"/training/compare/?runs={run.id}").content.decode()


def test_the_form_refuses_an_option_the_scaffold_does_not_have(client_for, task_set, settings):
    body = {"task_set": task_set.name, "kind": "grpo", "model": f"hf:{checkpoint_dir(settings.DATA_DIR)}",
            "scaffold": "aide", "scaffold_options": "dialect=sandmle"}
    response = client_for("curator").post("/training/", body)
    assert response.status_code == 400
    assert "unknown scaffold option 'dialect' for aide" in response.context["form"].errors["scaffold_options"][0]
    assert not TrainingRun.objects.exists()


def test_the_api_takes_scaffold_options_and_refuses_bad_ones_by_key(api_for, task_set, settings,
                                                                   django_capture_on_commit_callbacks):
    api = api_for("curator")
    body = {"task_set": task_set.name, "model": f"hf:{checkpoint_dir(settings.DATA_DIR)}", "steps": 1}
    for bad, key in (({"preset": "paper"}, "preset"), ({"scaffold_options": {"dialect": "verl"}}, "scaffold_options"),
                     ({"scaffold": "aira", "scaffold_options": {"dialect": "sandmle"}}, "scaffold_options"),
                     ({"scaffold_options": {"max_tokens": 8}}, "scaffold_options")):
        refused = api.post("/api/training-runs/", body | bad, format="json")
        assert refused.status_code == 400 and list(refused.json()) == [key], refused.json()
    assert not TrainingRun.objects.exists()
    with django_capture_on_commit_callbacks(execute=False):
        made = api.post("/api/training-runs/", body | {"preset": "cpu-smoke", "scaffold_options": {"dialect": "sandmle"},
                                                       "feedback": "score_answers"}, format="json")
    assert made.status_code == 201, made.json()
    recipe = made.json()["recipe"]
    assert recipe["preset"] == "cpu-smoke" and recipe["saw_test_scores"] is True
    assert recipe["scaffold_options"] == {"dialect": "sandmle"} and made.json()["config"]["steps"] == 1
    assert recipe["changed"] == {"steps": {"preset": 6, "run": 1}}


def test_a_campaign_row_of_a_checkpoint_shows_what_it_was_trained_with(client_for, task_set, tmp_path):
    from sandmle.rl.config import load_train_config
    from sandmle.rl.provenance import training_provenance, write_provenance
    from training_app.models import EvalCampaign

    checkpoint = tmp_path / "checkpoint-4"
    checkpoint.mkdir()
    config = load_train_config({"model": "m", "tasks": ["t"], "output_dir": "o", "preset": "sandmle-paper"})
    write_provenance(checkpoint, training_provenance(config))
    policy = f"hf:{checkpoint}"
    cell = {"policy": policy, "scaffold": "react", "n": 1, "metrics": {"medal_rate": {"mean": 0.5, "sem": None}}}
    report = {"policies": [policy, "baseline"], "scaffolds": ["react"], "baseline": "baseline", "metrics": ["medal_rate"],
              "cells": [cell, {**cell, "policy": "baseline"}]}
    campaign = EvalCampaign.objects.create(task_set=task_set, spec={"policies": [policy, "baseline"],
                                                                    "scaffolds": ["react"], "seeds": 1},
                                           report=report, state="succeeded")
    page = client_for("viewer").get(f"/campaigns/{campaign.id}/")
    rows = {row["policy"]: row for row in page.context["rows"]}
    assert rows[policy]["trained_with"] == {"text": "react dialect=sandmle output_lines=20, feedback score_answers",
                                            "saw_test_scores": True}
    assert rows["baseline"]["trained_with"] is None
    html = page.content.decode()
    assert "trained with react dialect=sandmle output_lines=20, feedback score_answers" in html
    assert "saw test scores" in html
