"""The engine's synthesis controls on the seed page's form and the API: rule family, training rows, noise strength,
headroom and difficulty targets and "keep going until N tasks pass the critic"; refusals name their field; the chosen
family stays the reviewers' secret; a task that misses a target is stored rejected with the target named."""

from __future__ import annotations

import pytest

from sandmle.synth.targets import DIFFICULTIES, difficulty_of
from tasks_app.models import Seed, SynthesisRun, SynthesizedTask
from tasks_app.review.difficulty import task_difficulty
from tasks_app.seeds import services as seed_services
from tasks_app.synthesis import services as synthesis_services
from tasks_app.tasks import regenerate


@pytest.fixture
def iris(db):
    seed_services.seeds_load_bundled()
    return Seed.objects.get(name="iris")


def test_the_form_offers_the_seeds_families_and_shows_each_error_at_its_field(client_for, iris):
    curator_page = client_for("curator").get("/seeds/iris/").content.decode()
    assert 'name="n_train"' in curator_page and 'name="rule_family"' not in curator_page  # a reviewer's choice
    client = client_for("reviewer")
    page = client.get("/seeds/iris/").content.decode()
    assert '<option value="rule_list">' in page and 'name="n_train"' in page and 'name="until_passing"' in page
    refused = client.post("/seeds/iris/", {"count": 1, "rng": 0, "n_train": 10, "rule_family": "grid_stripes"})
    html = refused.content.decode()
    assert refused.status_code == 400 and not SynthesisRun.objects.exists()
    assert "greater than or equal to 50" in html and "Select a valid choice" in html  # both errors at once


@pytest.mark.parametrize("body, field, words", [
    ({"n_train": 10}, "n_train", "50"),
    ({"n_train": 5000}, "n_train", "200"),
    ({"rule_family": "grid_stripes"}, "rule_family", "does not fit a tabular"),
    ({"until_passing": "often"}, "until_passing", "valid boolean"),
    ({"noise_scale": -0.1}, "noise_scale", "greater than or equal to 0"),
    ({"noise_scale": 2.5}, "noise_scale", "less than or equal to 2"),
    ({"noise_scale": "nan"}, "noise_scale", ""),
    ({"min_headroom": 1.5}, "min_headroom", "less than or equal to 1"),
    ({"min_headroom": -0.2}, "min_headroom", "greater than or equal to 0"),
    ({"difficulty": "brutal"}, "difficulty", "not a valid choice"),
])
def test_the_api_refuses_bad_controls_by_field(api_for, iris, body, field, words):
    response = api_for("reviewer").post("/api/synthesis-runs/", {"seed": "iris", "count": 1} | body, format="json")
    assert response.status_code == 400 and list(response.json()) == [field] and words in str(response.json()[field])
    assert not SynthesisRun.objects.exists()


def test_a_run_with_controls_makes_tasks_of_that_family_and_size_until_enough_pass(api_for, iris,
                                                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        body = {"seed": "iris", "count": 1, "rng": 4, "rule_family": "rule_list", "n_train": 80, "until_passing": True}
        refused = api_for("curator").post("/api/synthesis-runs/", body, format="json")
        created = api_for("reviewer").post("/api/synthesis-runs/", body, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["rule_family"]
    assert created.status_code == 201, created.json()
    run_id = created.json()["id"]
    assert created.json()["controls"]["rule_family"] == "rule_list"
    assert synthesis_services.synthesis_run_execute(run_id=run_id, worker="test") is True
    run = SynthesisRun.objects.get(id=run_id)
    tasks = list(run.tasks.all())
    passed = [task for task in tasks if task.rejected_by != "validator"]
    assert run.state == "succeeded" and len(passed) == 1 and passed == tasks[-1:]  # it stopped once one passed
    assert {task.rule_family for task in tasks} == {"rule_list"}
    assert all(task.spec["n_train"] in (80, 200) for task in tasks)  # 200: the engine's retry for low headroom
    assert api_for("viewer").get(f"/api/synthesis-runs/{run_id}/").json()["controls"].keys() == {"n_train",
                                                                                              "until_passing"}
    assert api_for("reviewer").get(f"/api/synthesis-runs/{run_id}/").json()["controls"]["rule_family"] == "rule_list"


def test_the_studio_labels_difficulty_in_the_engines_bands():
    assert tuple(SynthesizedTask.Difficulty.values) == DIFFICULTIES
    assert [task_difficulty(ladder={"baseline": 0.3, "oracle": 0.9, "linear": value}, metric="accuracy")
            for value in (0.8, 0.6, 0.5)] == [difficulty_of(h) for h in (5 / 6, 0.5, 1 / 3)] == ["easy", "medium", "hard"]


def test_the_form_refuses_bad_noise_and_targets_at_their_fields(client_for, iris):
    refused = client_for("curator").post("/seeds/iris/", {"count": 1, "rng": 0, "noise_scale": 3, "min_headroom": 2,
                                                          "difficulty": "brutal"})
    html = refused.content.decode()
    assert refused.status_code == 400 and not SynthesisRun.objects.exists()
    for field in ("noise_scale", "min_headroom", "difficulty"):
        assert f'id="id_{field}-error"' in html


def test_noise_and_targets_are_stored_and_listed(api_for, client_for, iris, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        usual = api_for("curator").post("/api/synthesis-runs/", {"seed": "iris", "count": 1, "noise_scale": 1.0},
                                        format="json")
        body = {"seed": "iris", "count": 2, "noise_scale": 0, "min_headroom": 0.6, "difficulty": "medium",
                "until_passing": True}
        created = api_for("curator").post("/api/synthesis-runs/", body, format="json")
    assert usual.status_code == 201 and usual.json()["controls"] == {}  # 1 is the engine's own strength
    assert created.status_code == 201, created.json()
    controls = {"noise_scale": 0.0, "min_headroom": 0.6, "difficulty": "medium", "until_passing": True}
    assert created.json()["controls"] == controls == SynthesisRun.objects.get(id=created.json()["id"]).controls
    page = client_for("viewer").get(f"/synthesis/{created.json()['id']}/").content.decode()
    assert "noise strength 0×" in page and "headroom at least 0.6" in page and "medium tasks only" in page
    assert "until 2 pass the critic and meet the targets" in page


def test_an_unreachable_target_keeps_drawing_then_rejects_with_the_target_named(
        api_for, client_for, iris, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(synthesis_services, "UNTIL_PASSING_TRIES_PER_TASK", 2)  # two tasks' worth of tries
    with django_capture_on_commit_callbacks(execute=False):
        body = {"seed": "iris", "count": 1, "rng": 4, "n_train": 60, "min_headroom": 1.0, "until_passing": True}
        run_id = api_for("curator").post("/api/synthesis-runs/", body, format="json").json()["id"]
    assert synthesis_services.synthesis_run_execute(run_id=run_id, worker="test") is True
    run = SynthesisRun.objects.get(id=run_id)
    tasks = list(run.tasks.all())
    assert run.state == "succeeded" and run.summary == {"tasks": 2, "validated": 0, "rejected": 2}
    assert all(task.status == "rejected" and task.rejected_by == "validator" for task in tasks)
    targeted = [task for task in tasks if any("below the chosen 1" in reason for reason in task.reasons)]
    assert targeted  # the critic may reject a try for its own reasons; the others name the target
    page = client_for("viewer").get(f"/synthesis/{run_id}/").content.decode()
    assert "below the chosen 1" in page and "rejected by the critic or for missing a target" in page


def test_a_reachable_difficulty_keeps_going_until_enough_meet_it(api_for, iris, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        body = {"seed": "iris", "count": 1, "rng": 4, "n_train": 60, "difficulty": "easy", "until_passing": True,
                "noise_scale": 0.5}
        run_id = api_for("curator").post("/api/synthesis-runs/", body, format="json").json()["id"]
    assert synthesis_services.synthesis_run_execute(run_id=run_id, worker="test") is True
    run = SynthesisRun.objects.get(id=run_id)
    tasks = list(run.tasks.order_by("created_at", "id"))
    passed = [task for task in tasks if task.rejected_by != "validator"]
    assert run.state == "succeeded" and passed == tasks[-1:] and passed[0].difficulty == "easy"
    assert all(task.spec["noise"]["scale"] == 0.5 for task in tasks)
    with django_capture_on_commit_callbacks(execute=False):  # a new version keeps the noise strength
        again = api_for("curator").post(f"/api/tasks/{passed[0].task_id}/regenerate/", {"rng": 7}, format="json")
    assert again.status_code == 202 and again.json()["controls"] == {"noise_scale": 0.5}
    assert regenerate.task_regenerate_execute(run_id=again.json()["id"], worker="test") is True
    assert SynthesisRun.objects.get(id=again.json()["id"]).tasks.get().spec["noise"]["scale"] == 0.5
