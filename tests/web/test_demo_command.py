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
