"""The engine's synthesis controls on the seed page's form and the API: rule family, training rows and "keep going
until N tasks pass the critic"; refusals name their field; the chosen family stays the reviewers' secret."""

from __future__ import annotations

import pytest

from tasks_app.models import Seed, SynthesisRun
from tasks_app.seeds import services as seed_services
from tasks_app.synthesis import services as synthesis_services


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
