"""The deployment's key goes only to LLM hosts the admin allows: refused at the form, the API and in the worker."""

from __future__ import annotations

import pytest

from sandmle_web.errors import ServiceError
from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun
from tasks_app.synthesis import services as synthesis_services

OUTSIDE = "http://169.254.169.254/v1"  # a cloud metadata address: the kind of internal host a curator might try


@pytest.fixture
def iris(db):
    return Seed.objects.create(name="iris", source=Seed.Source.BUNDLED, target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)


@pytest.fixture
def house_llm(settings):
    settings.SANDMLE_LLM_URL = "http://llm.internal:8000/v1"
    settings.SANDMLE_LLM_MODEL = "house-model"
    settings.SANDMLE_LLM_ALLOWED_HOSTS = []
    return settings


def test_api_and_form_refuse_a_host_outside_the_list(api_for, client_for, iris, house_llm):
    body = {"seed": "iris", "count": 1, "llm_url": OUTSIDE, "llm_model": "m"}
    response = api_for("curator").post("/api/synthesis-runs/", body, format="json")
    assert response.status_code == 400 and "not an allowed LLM host" in response.json()["llm_url"][0]
    page = client_for("curator").post("/seeds/iris/", body | {"rng": 0, "llm_key_env": ""})
    assert page.status_code == 400 and b"not an allowed LLM host" in page.content
    assert not SynthesisRun.objects.exists()


def test_empty_list_means_the_configured_host_only(iris, house_llm, users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = synthesis_services.synthesis_run_create(seed=iris, count=1, llm_url="http://llm.internal:8000/v1",
                                                      llm_model="m", user=users["curator"])
    assert run.llm_url.startswith("http://llm.internal")
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["other.internal:9000"]
    with pytest.raises(ServiceError) as refused:
        synthesis_services.synthesis_run_create(seed=iris, count=1, llm_url="http://llm.internal:8000/v1",
                                                llm_model="m")
    assert refused.value.field == "llm_url"


def test_worker_refuses_a_row_made_before_the_list_changed(iris, house_llm, users, chat_server):
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["127.0.0.1"]
    run = SynthesisRun.objects.create(seed=iris, count=1, llm_url=chat_server.base_url, llm_model="m")
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]
    with pytest.raises(ServiceError):
        synthesis_services.synthesis_run_execute(run_id=run.id, worker="test")
    run.refresh_from_db()
    assert run.state == JobState.FAILED and "not an allowed LLM host" in run.error
    assert chat_server.requests == []  # nothing was sent


def test_rollout_policy_outside_the_list_is_refused(api_for, house_llm, stored_tasks, users):
    from tasks_app.models import TaskSet
    from training_app.models import RolloutBatch
    from training_app.rollouts import services as training_services

    task_set = TaskSet.objects.create(name="one")
    task_set.tasks.set(stored_tasks[:1])
    with pytest.raises(ServiceError) as refused:
        training_services.rollout_batch_create(task_set=task_set, scaffold="react", policy=f"openai:m@{OUTSIDE}")
    assert refused.value.field == "policy" and "not an allowed LLM host" in str(refused.value)
    batch = RolloutBatch.objects.create(task_set=task_set, scaffold="react", policy=f"openai:m@{OUTSIDE}", samples=1,
                                        concurrency=1, feedback="score", budgets={"max_turns": 2}, queue="sandbox")
    with pytest.raises(ServiceError):  # the worker task fails, and says why on the row
        training_services.rollout_batch_execute(batch_id=batch.id, worker="test")
    batch.refresh_from_db()
    assert batch.state == JobState.FAILED and "not an allowed LLM host" in batch.error
