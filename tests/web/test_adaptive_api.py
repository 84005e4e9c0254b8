"""The REST API of adaptive runs (issue 56): anyone signed in reads a run's lineages and successors, hidden rules
only for reviewers; only reviewers decide a waiting successor, with field errors for bad input; a fixed run reads as
not adaptive; only curators save the frontier."""

from __future__ import annotations

import pytest

from sandmle.rl import environment_log
from tests.adaptive_runs import HIDDEN_RULE_MARK
from tests.web.test_adaptive_run_page import held_run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_the_environments_read_keeps_hidden_rules_for_reviewers(api_for, held_run):  # noqa: F811
    run, _ = held_run
    viewer = api_for("viewer").get(f"/api/training-runs/{run.id}/environments/")
    assert viewer.status_code == 200
    body = viewer.json()
    assert body["held"] is True and body["counts"]["made"] == 2 and len(body["waiting"]) == 2
    assert HIDDEN_RULE_MARK not in viewer.content.decode() and all("hidden_rule" not in w for w in body["waiting"])
    reviewer = api_for("reviewer").get(f"/api/training-runs/{run.id}/environments/")
    assert HIDDEN_RULE_MARK in reviewer.content.decode()


def test_only_a_reviewer_decides_and_bad_input_is_a_field_error(api_for, held_run, settings):  # noqa: F811
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1
    run, _ = held_run
    env = run.output_dir + "/environments"
    waiting = environment_log.waiting_successors(env)[0]["task_id"]
    url = f"/api/training-runs/{run.id}/successors/{waiting}/decision/"
    for role in ("viewer", "curator"):  # the attack: approve without the role
        assert api_for(role).post(url, {"decision": "approve"}, format="json").status_code == 403
    assert environment_log.verdict_of(env, waiting) is None
    bad = api_for("reviewer").post(url, {"decision": "maybe"}, format="json")
    assert bad.status_code == 400 and "decision" in bad.json()
    unknown = api_for("reviewer").post(f"/api/training-runs/{run.id}/successors/nope/decision/",
                                       {"decision": "approve"}, format="json")
    assert unknown.status_code == 400 and "task_id" in unknown.json()
    done = api_for("reviewer").post(url, {"decision": "approve", "reason": "reads sensibly"}, format="json")
    assert done.status_code == 201 and done.json() == {"task_id": waiting, "status": "approved"}
    assert environment_log.verdict_of(env, waiting) == "approved"


def test_a_fixed_run_has_no_environments_and_saving_needs_a_curator(api_for, held_run, users, task_set):  # noqa: F811
    from training_app.models import TrainingRun

    run, _ = held_run
    fixed = TrainingRun.objects.create(name="fixed", kind="grpo", task_set=task_set, config={"environments": "fixed"},
                                       output_dir=run.output_dir + "-fixed", queue="gpu", created_by=users["curator"])
    fixed_view = api_for("viewer").get(f"/api/training-runs/{fixed.id}/environments/")
    assert fixed_view.status_code == 200 and fixed_view.json()["adaptive"] is False and fixed_view.json()["rows"] == []
    assert api_for("viewer").get("/api/training-runs/999999/environments/").status_code == 404
    assert api_for("viewer").post(f"/api/training-runs/{run.id}/frontier-set/", {}, format="json").status_code == 403
    refused = api_for("curator").post(f"/api/training-runs/{run.id}/frontier-set/", {"name": "kept"}, format="json")
    assert refused.status_code == 400 and "run" in refused.json()  # no checkpoint has saved a frontier yet
