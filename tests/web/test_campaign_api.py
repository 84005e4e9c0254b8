"""The campaign API: field-level 400s from the engine's own checks, roles, cancel, detail and report."""

from __future__ import annotations

import pytest

from training_app.models import EvalCampaign

GOOD = {"task_set": "web-set", "policies": ["baseline"], "scaffolds": ["react"], "seeds": 1}


@pytest.mark.parametrize("field, value, words", [
    ("scaffolds", ["langchain"], "not a valid choice"),
    ("seeds", 0, "greater than or equal"),
    ("policies", ["baseline", "baseline"], "listed twice"),
    ("baseline", "hf:/elsewhere", "is not one of the policies"),
    ("task_set", "missing", "no task set"),
    ("scaffold_options", {"aira": {"steps": 2}}, "'aira' is not one of the campaign's scaffolds"),
    ("scaffold_options", {"react": {"dialect": "klingon"}}, "scaffold option 'dialect' of react"),
    ("scaffold_options", {"react": "fast"}, "Expected a dictionary"),
])
def test_bad_launch_is_a_field_error(api_for, task_set, field, value, words):
    response = api_for("curator").post("/api/campaigns/", GOOD | {field: value}, format="json")
    assert response.status_code == 400, response.content
    assert words in str(response.json()[field]), response.json()
    assert not EvalCampaign.objects.exists()


def test_roles_create_read_cancel_report(api_for, task_set, django_capture_on_commit_callbacks):
    assert api_for("viewer").post("/api/campaigns/", GOOD, format="json").status_code == 403
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        created = api_for("curator").post("/api/campaigns/", GOOD | {
            "baseline": "baseline", "scaffold_options": {"react": {"preset": "fast", "max_turns": "2"}}}, format="json")
    assert created.status_code == 201 and len(callbacks) == 1
    campaign_id = created.json()["id"]
    viewer = api_for("viewer")
    listed = viewer.get("/api/campaigns/").json()
    assert campaign_id in [row["id"] for row in listed["results"]]
    detail = viewer.get(f"/api/campaigns/{campaign_id}/").json()
    assert detail["state"] == "queued" and detail["spec"]["baseline"] == "baseline" and detail["queue"] == "sandbox"
    assert detail["spec"]["scaffold_options"] == {"react": {"preset": "fast", "max_turns": 2}}
    assert viewer.post(f"/api/campaigns/{campaign_id}/cancel/").status_code == 403
    cancelled = api_for("curator").post(f"/api/campaigns/{campaign_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert viewer.get(f"/api/campaigns/{campaign_id}/report/").json() == {}
    assert viewer.get("/api/campaigns/999/").status_code == 404
