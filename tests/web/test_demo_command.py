"""`manage.py demo` checks that the sandbox runs a step before it synthesizes anything: on a machine without
bubblewrap it stops at once with the reason and what to install, and no job is created."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tasks_app.models import SynthesisRun
from training_app.models import EvalCampaign, RolloutBatch, TrainingRun


def test_demo_without_bubblewrap_stops_before_synthesis(users, tmp_path, monkeypatch):
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("SANDMLE_UNSAFE_PLAIN_SUBPROCESS", raising=False)
    with pytest.raises(CommandError) as stopped:
        call_command("demo", "--username", users["curator"].username, "--quick")
    assert str(stopped.value) == ("the sandbox cannot run agent code here: bubblewrap (bwrap) is not on PATH: install "
                                  "bubblewrap (on Debian: apt-get install -y bubblewrap; scripts/setup does it as root)")
    assert not SynthesisRun.objects.exists() and not RolloutBatch.objects.exists()
    assert not EvalCampaign.objects.exists() and not TrainingRun.objects.exists()


def test_sandbox_check_runs_a_real_step(capsys):
    from sandmle.cli import main

    assert main(["sandbox-check"]) == 0
    assert capsys.readouterr().out.startswith("sandbox ok: a step ran in ")


@pytest.mark.torch
def test_the_quick_demos_grpo_run_visibly_learns(users, task_set, django_capture_on_commit_callbacks):
    """The demo's own run (the reply-menu tiny model under cpu-smoke), executed as its worker would: the reward rises."""
    pytest.importorskip("torch")
    from training_app.management.commands.demo import DEMO_STEPS, demo_grpo_task_set, demo_training_line, \
        demo_training_run_create, reward_rise
    from training_app.runs.services import training_run_execute

    trained_on = demo_grpo_task_set(task_set=task_set, user=users["curator"])
    assert trained_on.name == "demo-grpo" and trained_on.tasks.count() == task_set.tasks.count()  # iris tasks only
    assert demo_grpo_task_set(task_set=task_set, user=users["curator"]) == trained_on
    with django_capture_on_commit_callbacks(execute=False):
        run = demo_training_run_create(task_set=trained_on, user=users["curator"], quick=True)
    assert training_run_execute(run_id=run.id, worker="test") is True
    run.refresh_from_db()
    assert run.state == "succeeded" and run.metrics.count() == DEMO_STEPS["quick"] == run.config["steps"]
    assert run.config["preset"] == "cpu-smoke"
    before, after = reward_rise(run)
    assert after >= before + 0.3, [row.metrics["reward_mean"] for row in run.metrics.order_by("step")]
    line = demo_training_line(run)
    assert f"mean reward {before:.2f} -> {after:.2f}" in line and "tokens_per_s" not in line
    for row in run.metrics.all():  # the run page's stacked chart has its parts
        assert sum(row.metrics["reward_components"].values()) == pytest.approx(row.metrics["reward_mean"])


def test_the_demo_audits_the_set_it_trains_on_so_the_default_gate_opens(users, task_set, settings,
                                                                          django_capture_on_commit_callbacks):
    """The gate is on by default: the demo's run is refused on its unaudited set, and starts once the react audit the
    demo runs (executed here as its worker would) has passed; a rerun of the demo keeps that audit."""
    from sandmle_web.errors import ServiceError
    from training_app.audits.services import audit_create, audit_execute
    from training_app.management.commands.demo import demo_audit, demo_grpo_task_set, demo_training_run_create
    from training_app.models import TaskSetAudit

    assert settings.SANDMLE_REQUIRE_AUDIT is False  # the suite's own default (tests/conftest.py); deployed: on
    settings.SANDMLE_REQUIRE_AUDIT = True
    trained_on = demo_grpo_task_set(task_set=task_set, user=users["curator"])
    with pytest.raises(ServiceError) as refused, django_capture_on_commit_callbacks(execute=False):
        demo_training_run_create(task_set=trained_on, user=users["curator"], quick=True)
    assert refused.value.field == "task_set" and "was never audited" in str(refused.value)
    with django_capture_on_commit_callbacks(execute=False):
        audit = audit_create(task_set=trained_on, scaffolds=["react"], user=users["curator"])
    assert audit_execute(audit_id=audit.id, worker="test") is True
    lines = []
    assert demo_audit(task_set=trained_on, user=users["curator"], timeout=1, write=lines.append) == audit
    assert TaskSetAudit.objects.count() == 1 and lines[0].startswith(f"audit #{audit.id} of task set demo-grpo (react")
    with django_capture_on_commit_callbacks(execute=False):
        run = demo_training_run_create(task_set=trained_on, user=users["curator"], quick=True)
    assert run.audit_warning == ""
