"""Training and campaign launches through the API and the pages: unknown keys, wrong types and ranges are a 400 naming the field."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("body, field", [
    ({"task_set": "s", "policies": ["baseline"], "scaffolds": ["react"], "seedz": 3}, "seedz"),
    ({"task_set": "s", "policies": ["baseline"], "scaffolds": ["reflexion"]}, "scaffolds"),
    ({"task_set": "s", "policies": ["baseline"], "scaffolds": ["react"], "seeds": "three"}, "seeds"),
    ({"task_set": "s", "policies": ["baseline"], "scaffolds": ["react"], "max_turns": 10_000}, "max_turns"),
    ({"task_set": "s", "policies": [], "scaffolds": ["react"]}, "policies"),
])
def test_campaign_api_names_the_field(api_for, body, field):
    response = api_for("curator").post("/api/campaigns/", body, format="json")
    assert response.status_code == 400 and response.json()[field], response.content


@pytest.mark.parametrize("body, field", [
    ({"task_set": "s", "model": "m", "group_sise": 4}, "group_sise"),
    ({"task_set": "s", "model": "m", "steps": "many"}, "steps"),
    ({"task_set": "s", "model": "m", "lora_r": 0}, "lora_r"),
])
def test_training_api_names_the_field(api_for, body, field):
    response = api_for("curator").post("/api/training-runs/", body, format="json")
    assert response.status_code == 400 and response.json()[field], response.content
