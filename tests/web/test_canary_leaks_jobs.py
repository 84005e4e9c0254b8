"""The LLM key canary never reaches a synthesis run's page, API payload, log or error text when the LLM call fails."""

from __future__ import annotations

import logging

import pytest

from tasks_app.models import Seed, SynthesisRun
from tasks_app.synthesis import services as synthesis_services

KEY_CANARY = "sk-canary-key-77e1b4"


@pytest.fixture
def iris(db):
    """The bundled iris seed's row without its DNA (runs re-read it)."""
    return Seed.objects.create(name="iris", source=Seed.Source.BUNDLED, target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)


def test_a_failing_llm_call_shows_no_key(api_for, client_for, iris, settings, chat_server, monkeypatch, caplog,
                                         django_capture_on_commit_callbacks):
    settings.SANDMLE_LLM_KEY_ENVS = ["CANARY_LLM_KEY"]
    settings.SANDMLE_LLM_ALLOWED_HOSTS = ["127.0.0.1"]
    monkeypatch.setenv("CANARY_LLM_KEY", KEY_CANARY)
    # A hostile or broken endpoint that answers 500 and echoes the request's Authorization header into its error.
    chat_server.reply_fn = lambda request: (500, {"error": {"message": f"rejected {request['_headers'].get('authorization')}"}})
    caplog.set_level(logging.DEBUG)
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for("curator").post("/seeds/iris/", {
            "count": 1, "rng": 2, "llm_url": chat_server.base_url, "llm_model": "test-model",
            "llm_key_env": "CANARY_LLM_KEY"})
    assert response.status_code == 302
    run = SynthesisRun.objects.get()
    synthesis_services.synthesis_run_execute(run_id=run.id, worker="test")
    assert chat_server.requests, "the LLM endpoint was never asked"
    assert {request["_headers"]["authorization"] for request in chat_server.requests} == {f"Bearer {KEY_CANARY}"}
    run.refresh_from_db()
    outputs = {
        "page": client_for("viewer").get(f"/synthesis/{run.id}/").content.decode(),
        "curator page": client_for("curator").get(f"/synthesis/{run.id}/").content.decode(),
        "api": api_for("viewer").get(f"/api/synthesis-runs/{run.id}/").content.decode(),
        "api list": api_for("curator").get("/api/synthesis-runs/").content.decode(),
        "row": repr({field.name: getattr(run, field.name) for field in run._meta.fields}),
        "tasks": repr([(task.log, task.spec) for task in run.tasks.all()]),
        "log": caplog.text,
    }
    leaks = [where for where, text in outputs.items() if KEY_CANARY in text]
    assert not leaks, {where: outputs[where][:2000] for where in leaks}
