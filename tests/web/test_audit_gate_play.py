"""The audit gate compares how a run plays with how its audit played (issue 65): on a set whose complete ReAct audit
passed, a run in react's sandmle dialect, on score_answers feedback, on the sandmle-paper preset, on a rubric reward,
with an evaluation set never audited, or after task.json gained a byte, warns naming the gap, and is refused under
SANDMLE_REQUIRE_AUDIT; an audit that played the run's settings lets it pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.audit.coverage import RECORDED_BEFORE
from tests.checkpoint_dirs import checkpoint_dir
from training_app.audits.models import TaskSetAudit
from training_app.runs.models import TrainingRun
from workers.audits import run_task_set_audit

JUDGE = {"judge_url": "http://judge.example:8000/v1", "judge_model": "m"}
SANDMLE = {"scaffold_options": {"dialect": "sandmle"}}
PAPER_FEEDBACK = "feedback score_answers not audited (the audit played score): its Score tool grades against the " \
                 "private answers, so it needs an audit that played it"
DIALECT = "scaffold react option dialect=sandmle not audited (the audit played dialect=studio)"


@pytest.fixture(autouse=True)
def any_checkpoint(settings):
    return checkpoint_dir(settings.DATA_DIR)


@pytest.fixture
def gate_sets(users, approved_task_ids):
    """`gate-set` with one approved iris task and `held-out` with another, never audited."""
    from tasks_app.task_sets import services as task_set_services

    approved = approved_task_ids
    assert len(approved) >= 2
    gate = task_set_services.task_set_create(name="gate-set", task_ids=approved[:1], user=users["curator"])
    held_out = task_set_services.task_set_create(name="held-out", task_ids=approved[1:2], user=users["curator"])
    return gate, held_out


def _audit(api_for, capture, *, passes: bool = True, **body) -> TaskSetAudit:
    with capture(execute=False):
        response = api_for("curator").post("/api/audits/", {"task_set": "gate-set", "scaffolds": ["react"], **body},
                                           format="json")
    assert response.status_code == 201, response.json()
    assert run_task_set_audit(response.json()["id"]) is True
    audit = TaskSetAudit.objects.get(id=response.json()["id"])
    assert audit.state == "succeeded" and audit.passed is passes, (audit.error, audit.summary)
    return audit


def _launch(api_for, capture, **config):
    with capture(execute=False):
        return api_for("curator").post("/api/training-runs/", {"task_set": "gate-set", "model": "models/any",
                                                               "steps": 1, **config}, format="json")


def _warned(api_for, capture, **config) -> str:
    """The warning a launch carries without SANDMLE_REQUIRE_AUDIT (the run is made, then removed)."""
    response = _launch(api_for, capture, **config)
    assert response.status_code == 201, response.json()
    run = TrainingRun.objects.get(id=response.json()["id"])
    run.delete()
    return run.audit_warning


def _refused(api_for, capture, **config) -> str:
    response = _launch(api_for, capture, **config)
    assert response.status_code == 400, response.json()
    assert not TrainingRun.objects.exists()
    refusal = response.json()["task_set"][0]
    assert "SANDMLE_REQUIRE_AUDIT" in refusal
    return refusal


def test_a_complete_react_audit_vouches_for_no_other_way_of_playing(gate_sets, api_for, client_for, settings,
                                                                     django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    gate, held_out = gate_sets
    audit = _audit(api_for, capture)
    coverage = audit.coverage
    assert coverage["version"] == 2 and coverage["scaffolds"] == ["react"] and coverage["feedback"] == ["score"]
    assert coverage["scaffold_options"]["react"]["dialect"] == "studio" and coverage["judge"] is None
    assert coverage["task_sets"] == ["gate-set"] and coverage["reward"] == "dense"
    settings.SANDMLE_LLM_ALLOWED_HOSTS = ["judge.example"]
    judge_gap = ("reward dense+rubric needs an audit that ran the judge attacks (rubric_claims, judge_injection) "
                 "with its judge m at judge.example:8000: the audit ran no judge (studio audits run none)")
    cases = [
        (SANDMLE, [DIALECT]),
        ({"feedback": "score_answers"}, [PAPER_FEEDBACK]),
        ({"preset": "sandmle-paper", "steps": 1, "epochs": None}, [DIALECT, PAPER_FEEDBACK]),
        ({"reward": "dense+rubric", **JUDGE}, [judge_gap]),
        ({"eval_task_set": "held-out"}, ["evaluation task set held-out was never audited for reward hacks"]),
    ]
    # What the audit played still passes: and, by design, adaptive successors (each audited on the run's settings
    # before it enters the draw) and async rollouts (the same episodes from older weights).
    assert _warned(api_for, capture) == ""
    assert _warned(api_for, capture, environments="adaptive") == ""
    assert _warned(api_for, capture, rollout_mode="async", importance_sampling="token_truncate") == ""
    uncovered = f"the last audit of task set gate-set (#{audit.id}) does not cover this run: "
    for config, gaps in cases:
        config = {key: value for key, value in config.items() if value is not None}
        expected = "; ".join(gaps) if "eval_task_set" in config else uncovered + "; ".join(gaps)
        assert _warned(api_for, capture, **config) == expected[:300]  # the run keeps its first 300 characters
    # A run launched with a warning links the audit form filled with its settings.
    warned = _launch(api_for, capture, preset="sandmle-paper", epochs=None).json()
    page = client_for("viewer").get(f"/training/{warned['id']}/").content.decode()
    assert 'id="audit-these-settings"' in page
    assert "scaffold_options=react.dialect%3Dsandmle%0Areact.output_lines%3D20&amp;feedback=score_answers" in page
    TrainingRun.objects.all().delete()
    settings.SANDMLE_REQUIRE_AUDIT = True
    for config, gaps in cases:
        config = {key: value for key, value in config.items() if value is not None}
        refusal = _refused(api_for, capture, **config)
        assert all(gap in refusal for gap in gaps), (config, refusal)

    # The form refuses the same, and offers the audit form filled to play as the run would.
    form = client_for("curator").post("/training/", {"task_set": "gate-set", "kind": "grpo", "model": "models/any",
                                                     "steps": 1, "scaffold": "react",
                                                     "scaffold_options": "dialect=sandmle",
                                                     "feedback": "score_answers"})
    assert form.status_code == 400 and DIALECT in " ".join(form.context["form"].errors["task_set"])
    (name, link), = form.context["audit_links"]
    assert name == "gate-set" and 'id="audit-these-settings"' in form.content.decode()
    prefilled = client_for("curator").get(link).context["form"]
    assert prefilled["task_set"].value() == "gate-set" and prefilled["scaffolds"].value() == ["react"]
    assert prefilled["scaffold_options"].value() == "react.dialect=sandmle"
    assert prefilled["feedback"].value() == "score_answers"

    # One byte appended to task.json after the audit passed: the task is stale.
    task = gate.tasks.get()
    task_json = Path(task.bundle_dir) / "task.json"
    original = task_json.read_bytes()
    try:
        task_json.write_bytes(original + b" ")
        assert f"task {task.task_id} changed after the audit" in _refused(api_for, capture)
    finally:
        task_json.write_bytes(original)  # the session's bundles are shared by other tests
    assert _launch(api_for, capture).status_code == 201
    TrainingRun.objects.all().delete()

    # A record from before audits kept how they played vouches for nothing.
    TaskSetAudit.objects.filter(id=audit.id).update(coverage={k: v for k, v in coverage.items() if k != "version"})
    assert RECORDED_BEFORE in _refused(api_for, capture)
    assert api_for("viewer").get("/api/task-sets/gate-set/").json()["audit"]["stale"] == [RECORDED_BEFORE]


def test_an_audit_that_played_the_runs_settings_lets_it_pass(
        gate_sets, api_for, settings, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    sandmle = _audit(api_for, capture, scaffold_options={"react": {"dialect": "sandmle"}})
    assert sandmle.scaffold_options == {"react": {"dialect": "sandmle"}}
    assert sandmle.coverage["scaffold_options"]["react"]["dialect"] == "sandmle"
    settings.SANDMLE_REQUIRE_AUDIT = True
    # The paper's recipe on the public score: the dialect the audit played, nothing else changed.
    response = _launch(api_for, capture, preset="sandmle-paper", epochs=None, feedback="score")
    assert response.status_code == 201, response.json()
    assert TrainingRun.objects.get().audit_warning == "" and TrainingRun.objects.get().config["feedback"] == "score"
    TrainingRun.objects.all().delete()
    assert DIALECT not in _refused(api_for, capture, preset="sandmle-paper")  # its score_answers remains a gap

    # An audit that played score_answers too (its feedback attack hill-climbed the real answers through the Score
    # tool: tests/engine/test_audit_sandmle.py shows a task where that leaks, and the audit fails) covers the paper's
    # recipe whole.
    answers = _audit(api_for, capture, scaffold_options={"react": {"dialect": "sandmle"}}, feedback="score_answers")
    assert answers.coverage["feedback"] == ["score_answers"]
    probe = answers.verdicts.get(attack="feedback_probe")
    evidence = (Path(answers.out_dir) / probe.evidence).read_text()
    assert '"score_primary' in evidence and "best public score 0." in evidence  # it climbed on the scores shown
    response = _launch(api_for, capture, preset="sandmle-paper", epochs=None)
    assert response.status_code == 201, response.json()
    assert TrainingRun.objects.get().audit_warning == ""


def test_the_audit_launch_takes_scaffold_options_and_feedback(gate_sets, api_for, client_for,
                                                              django_capture_on_commit_callbacks):
    curator = api_for("curator")
    bad = curator.post("/api/audits/", {"task_set": "gate-set", "scaffolds": ["react"],
                                        "scaffold_options": {"react": {"dialect": "klingon"}}}, format="json")
    assert bad.status_code == 400 and "dialect" in bad.json()["scaffold_options"][0]
    budget = curator.post("/api/audits/", {"task_set": "gate-set", "scaffolds": ["react"],
                                           "scaffold_options": {"react": {"max_turns": 3}}}, format="json")
    assert budget.status_code == 400 and "sets episode budgets itself" in budget.json()["scaffold_options"][0]
    other = curator.post("/api/audits/", {"task_set": "gate-set", "scaffolds": ["aide"],
                                          "scaffold_options": {"react": {"dialect": "sandmle"}}}, format="json")
    assert other.status_code == 400 and "does not play" in other.json()["scaffold_options"][0]
    assert curator.post("/api/audits/", {"task_set": "gate-set", "feedback": "shout"},
                        format="json").status_code == 400
    with django_capture_on_commit_callbacks(execute=False):
        form = client_for("curator").post("/audits/", {"task_set": "gate-set", "scaffolds": ["react", "aide"],
                                                       "scaffold_options": "react.dialect=sandmle",
                                                       "feedback": "score_answers", "reward_scheme": "dense"})
    assert form.status_code == 302, form.context["form"].errors
    audit = TaskSetAudit.objects.get()
    assert audit.scaffold_options == {"react": {"dialect": "sandmle"}} and audit.feedback == "score_answers"
    shown = api_for("viewer").get(f"/api/audits/{audit.id}/").json()
    assert shown["scaffold_options"] == {"react": {"dialect": "sandmle"}} and shown["feedback"] == "score_answers"
    refused = client_for("curator").post("/audits/", {"task_set": "gate-set", "scaffolds": ["aide"],
                                                      "scaffold_options": "dialect=sandmle", "reward_scheme": "dense"})
    assert refused.status_code == 400 and "dialect" in " ".join(refused.context["form"].errors["scaffold_options"])


def test_an_sft_run_takes_only_its_scaffolds_conversations_and_needs_them_audited(
        gate_sets, users, api_for, settings, django_capture_on_commit_callbacks):
    from training_app.rollouts import services as rollout_services
    from training_app.runs import services as training_services

    capture = django_capture_on_commit_callbacks
    gate, _ = gate_sets
    # A short AIDE tree is enough: its review turns are what must stay out of a ReAct dataset.
    for scaffold, options in (("react", None), ("aide", {"steps": 2, "num_drafts": 1})):
        with capture(execute=False):
            batch = rollout_services.rollout_batch_create(task_set=gate, scaffold=scaffold, policy="baseline",
                                                          samples=1, scaffold_options=options, user=users["curator"])
        assert rollout_services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    aide_records = [row.record for row in batch.trajectories.all()]
    assert any("is_bug" in (turn.get("text") or "") for record in aide_records for turn in record["turns"])
    _audit(api_for, capture)
    with capture(execute=False):
        run = training_services.training_run_create(task_set=gate, kind="sft", model="models/any", steps=1,
                                                    user=users["curator"])
    assert run.audit_warning == ""
    rows = [json.loads(line) for line in Path(run.config["dataset"][0]).read_text().splitlines()]
    assert rows and not any("is_bug" in message["content"] for row in rows for message in row["messages"])
    assert all(message["content"].count("REPLY FORMAT: react") for row in rows for message in row["messages"][:1])
    run.delete()
    settings.SANDMLE_REQUIRE_AUDIT = True
    from sandmle_web.errors import ServiceError

    with pytest.raises(ServiceError) as aide:
        with capture(execute=False):
            training_services.training_run_create(task_set=gate, kind="sft", model="models/any", steps=1,
                                                  scaffold="aide", user=users["curator"])
    assert "scaffold aide not audited" in str(aide.value)
    with pytest.raises(ServiceError) as dialect:
        with capture(execute=False):
            training_services.training_run_create(task_set=gate, kind="sft", model="models/any", steps=1,
                                                  scaffold_options={"dialect": "sandmle"}, user=users["curator"])
    assert DIALECT in str(dialect.value)
