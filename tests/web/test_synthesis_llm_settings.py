"""LLM settings of a synthesis run: deployment defaults, field-level 400s, and a run that asks the local chat server."""

from __future__ import annotations

import pytest

from tasks_app.models import Seed, SynthesisRun
from tasks_app.synthesis import services as synthesis_services
from tests.engine.llm_replies import simulated_llm


@pytest.fixture
def iris(db):
    """The bundled iris seed's row without its DNA (storing every bundled seed's DNA takes seconds; runs re-read it)."""
    return Seed.objects.create(name="iris", source=Seed.Source.BUNDLED, target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)


@pytest.fixture
def llm_settings(settings):
    settings.SANDMLE_LLM_URL = "http://llm.internal:8000/v1"
    settings.SANDMLE_LLM_MODEL = "house-model"
    settings.SANDMLE_LLM_KEY_ENV = "HOUSE_LLM_KEY"
    settings.SANDMLE_LLM_KEY_ENVS = ["HOUSE_LLM_KEY", "SYNTH_TEST_KEY"]
    settings.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]  # the local chat server
    return settings


@pytest.mark.parametrize("changes, field, words", [
    ({"llm_key_env": "SECRET_KEY"}, "llm_key_env", "not an allowed key variable"),
    ({"llm_url": "ftp://llm.internal/v1"}, "llm_url", "http(s) base URL"),
    ({"llm_url": "http://me:pw@llm.internal/v1"}, "llm_url", "credentials"),
    ({"llm_url": "not a url"}, "llm_url", "valid URL"),
    ({"llm_model": ""}, "llm_model", "both"),
])
def test_bad_llm_settings_are_field_level_400s(api_for, iris, llm_settings, changes, field, words):
    body = {"seed": "iris", "count": 1, "llm_url": "http://llm.internal:8000/v1", "llm_model": "m",
            "llm_key_env": "HOUSE_LLM_KEY"} | changes
    response = api_for("curator").post("/api/synthesis-runs/", body, format="json")
    assert response.status_code == 400 and words in str(response.json()[field]), response.json()
    assert not SynthesisRun.objects.exists()


def test_runs_take_the_deployment_defaults_unless_told_otherwise(api_for, client_for, iris, llm_settings,
                                                                 django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        default = api_for("curator").post("/api/synthesis-runs/", {"seed": "iris", "count": 1}, format="json").json()
        procedural = api_for("curator").post("/api/synthesis-runs/", {"seed": "iris", "count": 1, "llm_url": ""},
                                             format="json").json()
    stored = {run.id: run for run in SynthesisRun.objects.all()}
    assert (default["llm_url"], default["llm_model"], stored[default["id"]].llm_key_env) == (
        "http://llm.internal:8000/v1", "house-model", "HOUSE_LLM_KEY")
    assert (procedural["llm_url"], procedural["llm_model"], stored[procedural["id"]].llm_key_env) == ("", "", "")
    # Which variable holds the key is the admin's to read: absent from a curator's answer, present in an admin's.
    assert "llm_key_env" not in default
    assert api_for("admin").get(f"/api/synthesis-runs/{default['id']}/").json()["llm_key_env"] == "HOUSE_LLM_KEY"
    page = client_for("curator").get("/seeds/iris/")
    assert b'value="http://llm.internal:8000/v1"' in page.content and b"HOUSE_LLM_KEY" not in page.content


def test_a_run_with_llm_settings_asks_the_endpoint_with_its_key(api_for, client_for, iris, llm_settings, chat_server,
                                                                monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setenv("SYNTH_TEST_KEY", "run-key")
    chat_server.reply_fn = simulated_llm
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for("curator").post("/seeds/iris/", {
            "count": 1, "rng": 2, "llm_url": chat_server.base_url, "llm_model": "test-model",
            "llm_key_env": "SYNTH_TEST_KEY"})
    assert response.status_code == 302
    run = SynthesisRun.objects.get()
    assert (run.llm_url, run.llm_model, run.llm_key_env) == (chat_server.base_url, "test-model", "SYNTH_TEST_KEY")
    assert synthesis_services.synthesis_run_execute(run_id=run.id, worker="test") is True
    task = run.tasks.get()
    assert task.spec["domain"]["source"] == "llm:test-model" and task.spec["rule"]["source"] == "llm:test-model"
    assert task.domain_id == "hydro_turbine_wear" and task.title == "Hydro Turbine Runner Wear Class"
    assert any("llm:test-model answered" in entry["message"] for entry in task.log)
    assert {request["_headers"]["authorization"] for request in chat_server.requests} == {"Bearer run-key"}
    page = client_for("viewer").get(f"/synthesis/{run.id}/")
    assert f"LLM test-model at {chat_server.base_url}".encode() in page.content
