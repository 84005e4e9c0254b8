"""Every outbound model endpoint a user names goes through one check (sandmle_web.llm_hosts): a training run's rubric
judge, its vLLM server and its key variable, a campaign's `openai:` policies. Each attack is refused at the API or the
form with the field named, a stored row whose host was allowed at launch but is not any more fails in the worker with
the reason and sends nothing (a real listener, `chat_server`, must receive no request), and the key variables'
names are shown to admins only."""

from __future__ import annotations

import pytest

from sandmle_web.jobs import JobState
from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import EvalCampaign, TrainingRun

OUTSIDE = "http://169.254.169.254/v1"  # a cloud metadata address: the kind of internal host a curator might try
JUDGE_KEY = "JUDGE_TEST_KEY"  # an allowed key variable, named so that a page showing it is easy to find


@pytest.fixture
def house_llm(settings):
    settings.SANDMLE_LLM_URL = "http://llm.internal:8000/v1"
    settings.SANDMLE_LLM_KEY_ENV = "HOUSE_LLM_KEY"
    settings.SANDMLE_LLM_KEY_ENVS = ["HOUSE_LLM_KEY", JUDGE_KEY]
    settings.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]
    settings.SANDMLE_REQUIRE_AUDIT = False  # the endpoint check, not the audit gate, is under test here
    return settings


@pytest.fixture
def launch(settings, task_set):
    """A one-step GRPO launch on the test set with a model inside the roots; each test adds its judge."""
    return {"task_set": task_set.name, "kind": "grpo", "model": f"hf:{checkpoint_dir(settings.DATA_DIR)}",
            "steps": 1, "group_size": 2, "tasks_per_step": 1, "max_turns": 1, "max_tokens": 8}


JUDGE = {"reward": "dense+rubric", "judge_model": "m"}


@pytest.mark.parametrize("changes, field, words", [
    ({"judge_url": OUTSIDE}, "judge_url", "not an allowed LLM host"),
    ({"judge_url": "http://127.0.0.1:9931/v1"}, "judge_url", "not an allowed LLM host"),
    ({"judge_url": "http://me:pw@llm.internal/v1"}, "judge_url", "credentials"),
    ({"judge_url": "file:///etc/passwd"}, "judge_url", "http(s) base URL"),
    ({"judge_url": "http://llm.internal:8000/v1", "judge_key_env": "SECRET_KEY"}, "judge_key_env",
     "not an allowed key variable"),
    ({"reward": "dense", "judge_key_env": "SECRET_KEY"}, "judge_key_env", "not an allowed key variable"),
    ({"reward": "dense", "vllm_server_url": OUTSIDE}, "vllm_server_url", "not an allowed LLM host"),
])
def test_the_training_api_refuses_an_endpoint_or_key_variable_by_field(api_for, house_llm, launch, changes, field,
                                                                       words):
    response = api_for("curator").post("/api/training-runs/", launch | JUDGE | changes, format="json")
    assert response.status_code == 400 and list(response.json()) == [field], response.json()
    assert words in response.json()[field][0]
    assert "HOUSE_LLM_KEY" not in response.content.decode()  # the refusal lists no key variable
    assert not TrainingRun.objects.exists()


def test_the_issue_attack_sends_nothing(api_for, house_llm, launch, chat_server):
    """The reported attack, to a listener on this machine: refused, and the listener hears nothing."""
    body = launch | JUDGE | {"judge_url": chat_server.base_url, "judge_key_env": "SECRET_KEY"}
    response = api_for("curator").post("/api/training-runs/", body, format="json")
    assert response.status_code == 400 and "not an allowed LLM host" in response.json()["judge_url"][0]
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]  # the host allowed: the key variable still not
    response = api_for("curator").post("/api/training-runs/", body, format="json")
    assert response.status_code == 400 and "not an allowed key variable" in response.json()["judge_key_env"][0]
    assert not TrainingRun.objects.exists() and chat_server.requests == []


def test_the_training_form_refuses_the_judge_on_its_field(client_for, house_llm, launch):
    page = client_for("curator").post("/training/", launch | JUDGE | {"judge_url": OUTSIDE})
    assert page.status_code == 400
    assert "not an allowed LLM host" in page.context["form"].errors["judge_url"][0]
    page = client_for("curator").post("/training/", launch | JUDGE | {"judge_url": "http://llm.internal/v1",
                                                                        "judge_key_env": "SECRET_KEY"})
    assert page.status_code == 400
    assert "not an allowed key variable" in page.context["form"].errors["judge_key_env"][0]
    assert not TrainingRun.objects.exists()


def test_the_form_names_no_key_variable_and_a_blank_one_is_the_deployments(client_for, house_llm, launch,
                                                                          django_capture_on_commit_callbacks):
    form = client_for("curator").get("/training/").content.decode()
    assert "OPENAI_API_KEY" not in form and "HOUSE_LLM_KEY" not in form
    with django_capture_on_commit_callbacks(execute=False):
        page = client_for("curator").post("/training/", launch | JUDGE | {"judge_url": "http://llm.internal/v1",
                                                                            "judge_key_env": ""})
    assert page.status_code == 302, page.context["form"].errors if page.context else page
    assert TrainingRun.objects.get().config["judge_key_env"] == "HOUSE_LLM_KEY"


def _stored_run(*, api_for, launch, judge_url: str, django_capture_on_commit_callbacks, **changes) -> TrainingRun:
    with django_capture_on_commit_callbacks(execute=False):  # queued, not run: the test plays the worker
        response = api_for("curator").post("/api/training-runs/", launch | JUDGE | {
            "judge_url": judge_url, "judge_key_env": JUDGE_KEY} | changes, format="json")
    assert response.status_code == 201, response.json()
    return TrainingRun.objects.get(id=response.json()["id"])


def test_the_worker_refuses_a_judge_taken_off_the_list_and_sends_nothing(api_for, house_llm, launch, chat_server,
                                                                         monkeypatch,
                                                                         django_capture_on_commit_callbacks):
    from training_app.runs import services

    monkeypatch.setenv(JUDGE_KEY, "judge-secret")
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    run = _stored_run(api_for=api_for, launch=launch, judge_url=chat_server.base_url,
                      django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]  # the admin changes the list before a worker takes the run
    assert services.training_run_execute(run_id=run.id, worker="test") is True
    run.refresh_from_db()
    assert run.state == JobState.FAILED and run.error.startswith("judge_url: ")
    assert "not an allowed LLM host" in run.error
    assert chat_server.requests == [] and not run.metrics.exists()


def test_an_allowed_judge_is_what_the_worker_would_ask_with_the_key(api_for, house_llm, launch, chat_server,
                                                                     monkeypatch,
                                                                     django_capture_on_commit_callbacks):
    """The control for the refusals above: with the host allowed, the stored run passes the worker's check and the
    engine's judge built from it reaches the listener with the key variable's value (so a listener that hears
    nothing there means the check stopped it)."""
    import json

    from sandmle.rewards.schemes import compute_reward
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import episode_config
    from sandmle.tasks.grade_report import GradeReport
    from training_app.runs import services

    monkeypatch.setenv(JUDGE_KEY, "judge-secret")
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    run = _stored_run(api_for=api_for, launch=launch, judge_url=chat_server.base_url,
                      django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    config = load_train_config(dict(run.config), kind=run.kind)
    assert services.endpoint_settings_refusal(config.values) is None
    chat_server.reply_fn = lambda request: json.dumps({"met": False, "reason": "no evidence"})
    report = GradeReport("t", 0.6, 0.9, 0.8, 0.7, 0.5, False, False, False, False, True, True, True, False,
                         "median", 0.5)
    compute_reward("rubric", report=report, format_rate=1.0, trajectory={"turns": []},
                   judge=episode_config(config).rubric_judge)
    assert chat_server.requests
    assert {request["_headers"]["authorization"] for request in chat_server.requests} == {"Bearer judge-secret"}


def test_the_worker_refuses_a_key_variable_taken_off_the_list(api_for, house_llm, launch, chat_server,
                                                              django_capture_on_commit_callbacks):
    from training_app.runs import services

    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    run = _stored_run(api_for=api_for, launch=launch, judge_url=chat_server.base_url,
                      django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    house_llm.SANDMLE_LLM_KEY_ENVS = ["HOUSE_LLM_KEY"]
    assert services.training_run_execute(run_id=run.id, worker="test") is True
    run.refresh_from_db()
    assert run.state == JobState.FAILED and run.error.startswith("judge_key_env: ")
    assert chat_server.requests == []


def test_the_worker_refuses_a_vllm_server_taken_off_the_list(api_for, house_llm, launch, chat_server,
                                                             django_capture_on_commit_callbacks):
    from training_app.runs import services

    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    run = _stored_run(api_for=api_for, launch=launch, judge_url="http://llm.internal/v1",
                      vllm_server_url=f"http://127.0.0.1:{chat_server.port}",
                      django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]
    assert services.training_run_execute(run_id=run.id, worker="test") is True
    run.refresh_from_db()
    assert run.state == JobState.FAILED and run.error.startswith("vllm_server_url: ")
    assert chat_server.requests == []


def test_key_variables_are_shown_to_admins_only(api_for, client_for, house_llm, launch,
                                                django_capture_on_commit_callbacks):
    run = _stored_run(api_for=api_for, launch=launch, judge_url="http://llm.internal:8000/v1",
                      django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    for role in ("viewer", "curator", "reviewer"):
        shown = api_for(role).get(f"/api/training-runs/{run.id}/")
        assert shown.status_code == 200 and "judge_key_env" not in shown.json()["config"]
        assert JUDGE_KEY not in shown.content.decode(), role
        assert shown.json()["config"]["judge_url"] == "http://llm.internal:8000/v1"  # the recipe's judge stays read
        listed = api_for(role).get("/api/training-runs/")
        assert JUDGE_KEY not in listed.content.decode(), role
        for page in (f"/training/{run.id}/", f"/training/compare/?runs={run.id}"):
            assert JUDGE_KEY not in client_for(role).get(page).content.decode(), (role, page)
    admin = api_for("admin").get(f"/api/training-runs/{run.id}/")
    assert admin.json()["config"]["judge_key_env"] == JUDGE_KEY
    assert JUDGE_KEY in client_for("admin").get(f"/training/{run.id}/").content.decode()


def test_an_endpoint_stored_with_credentials_is_shown_without_them(api_for, house_llm, launch,
                                                                   django_capture_on_commit_callbacks):
    run = _stored_run(api_for=api_for, launch=launch, judge_url="http://llm.internal:8000/v1",
                      django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    # A row written before the checks: the URL carries a user, a password and a token in its query.
    TrainingRun.objects.filter(id=run.id).update(
        config=run.config | {"judge_url": "http://me:hunter2@llm.internal:8000/v1?api-key=tok"})
    shown = api_for("viewer").get(f"/api/training-runs/{run.id}/")
    assert shown.json()["config"]["judge_url"] == "http://llm.internal:8000/v1"
    assert "hunter2" not in shown.content.decode() and "tok" not in shown.json()["config"]["judge_url"]


def test_synthesis_key_variables_are_shown_to_admins_only(api_for, client_for, house_llm, stored_tasks):
    from tasks_app.models import Seed, SynthesisRun

    run = SynthesisRun.objects.create(seed=Seed.objects.get(name="iris"), count=1, llm_url="http://llm.internal/v1",
                                      llm_model="m", llm_key_env=JUDGE_KEY)
    for role in ("viewer", "curator", "reviewer"):
        for path in (f"/api/synthesis-runs/{run.id}/", "/api/synthesis-runs/"):
            assert JUDGE_KEY not in api_for(role).get(path).content.decode(), (role, path)
        assert JUDGE_KEY not in client_for(role).get(f"/synthesis/{run.id}/").content.decode(), role
    assert api_for("admin").get(f"/api/synthesis-runs/{run.id}/").json()["llm_key_env"] == JUDGE_KEY


def _campaign_body(task_set, policy: str) -> dict:
    return {"task_set": task_set.name, "policies": [policy], "scaffolds": ["react"], "seeds": 1, "max_turns": 1}


def test_the_campaign_api_refuses_an_openai_policy_outside_the_list(api_for, house_llm, task_set, chat_server):
    for policy in (f"openai:m@{OUTSIDE}", f"openai:m@{chat_server.base_url}", "openai:m@http://u:p@llm.internal/v1"):
        response = api_for("curator").post("/api/campaigns/", _campaign_body(task_set, policy), format="json")
        assert response.status_code == 400 and list(response.json()) == ["policies"], response.json()
    body = _campaign_body(task_set, "baseline") | {"baseline": f"openai:m@{OUTSIDE}"}
    response = api_for("curator").post("/api/campaigns/", body, format="json")
    assert response.status_code == 400 and "baseline" in response.json(), response.json()
    assert not EvalCampaign.objects.exists() and chat_server.requests == []


def test_the_campaign_form_refuses_an_openai_policy_outside_the_list(client_for, house_llm, task_set):
    page = client_for("curator").post("/campaigns/", {
        "task_set": task_set.name, "policies": f"openai:m@{OUTSIDE}", "scaffolds": "react", "seeds": 1,
        "feedback": "score", "max_turns": 1})
    assert page.status_code == 400 and b"not an allowed LLM host" in page.content
    assert not EvalCampaign.objects.exists()


def test_the_campaign_worker_refuses_a_host_taken_off_the_list(api_for, house_llm, task_set, chat_server,
                                                               django_capture_on_commit_callbacks):
    from training_app.campaigns import services

    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    with django_capture_on_commit_callbacks(execute=False):
        response = api_for("curator").post(
            "/api/campaigns/", _campaign_body(task_set, f"openai:m@{chat_server.base_url}"), format="json")
    assert response.status_code == 201, response.json()
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]
    campaign_id = response.json()["id"]
    assert services.campaign_execute(campaign_id=campaign_id, worker="test") is True
    campaign = EvalCampaign.objects.get(id=campaign_id)
    assert campaign.state == JobState.FAILED and campaign.error.startswith("policies: ")
    assert "not an allowed LLM host" in campaign.error
    assert chat_server.requests == [] and not campaign.episodes.exists()


def test_the_rollout_api_and_worker_send_nothing_to_a_host_off_the_list(api_for, house_llm, task_set, chat_server,
                                                                        django_capture_on_commit_callbacks):
    from sandmle_web.errors import ServiceError
    from training_app.models import RolloutBatch
    from training_app.rollouts import services

    body = {"task_set": task_set.name, "scaffold": "react", "policy": f"openai:m@{chat_server.base_url}",
            "samples": 1, "concurrency": 1, "max_turns": 1}
    refused = api_for("curator").post("/api/rollout-batches/", body, format="json")
    assert refused.status_code == 400 and "not an allowed LLM host" in refused.json()["policy"][0]
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    with django_capture_on_commit_callbacks(execute=False):
        made = api_for("curator").post("/api/rollout-batches/", body, format="json")
    assert made.status_code == 201, made.json()
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]
    with pytest.raises(ServiceError):  # the worker task fails, and says why on the row
        services.rollout_batch_execute(batch_id=made.json()["id"], worker="test")
    batch = RolloutBatch.objects.get(id=made.json()["id"])
    assert batch.state == JobState.FAILED and "not an allowed LLM host" in batch.error
    assert chat_server.requests == [] and not batch.trajectories.exists()


def test_the_frontier_api_and_worker_send_nothing_to_a_host_off_the_list(api_for, house_llm, task_set, chat_server,
                                                                         django_capture_on_commit_callbacks):
    from tasks_app.frontier import services
    from tasks_app.frontier.models import FrontierRun

    body = {"task_set": task_set.name, "policy": f"openai:m@{chat_server.base_url}", "samples": 2, "band_low": 0.2,
            "band_high": 0.8}
    refused = api_for("curator").post("/api/frontier-runs/", body, format="json")
    assert refused.status_code == 400 and "not an allowed LLM host" in refused.json()["policy"][0]
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal", "127.0.0.1"]
    with django_capture_on_commit_callbacks(execute=False):
        made = api_for("curator").post("/api/frontier-runs/", body, format="json")
    assert made.status_code == 201, made.json()
    house_llm.SANDMLE_LLM_ALLOWED_HOSTS = ["llm.internal"]
    assert services.frontier_run_execute(run_id=made.json()["id"], worker="test") is True
    run = FrontierRun.objects.get(id=made.json()["id"])
    assert run.state == JobState.FAILED and "not an allowed LLM host" in run.error
    assert chat_server.requests == []
