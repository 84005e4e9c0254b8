"""A lost worker's job: its stale row is re-claimed (attempts counted), the sweep requeues it until claims run out and
then fails it with the reason; a worker whose claim was taken over stops; a full disk is named as such."""

from __future__ import annotations

import errno
from datetime import timedelta

import pytest
from django.utils import timezone

from sandmle_web.jobs import JobState, describe_failure
from tasks_app.models import Seed, SynthesisRun


@pytest.fixture
def run(db):
    seed = Seed.objects.create(name="s", source="upload", target="y", task_type="binary", metric="accuracy",
                               modality="tabular", n_rows=10, n_features=2)
    return SynthesisRun.objects.create(seed=seed, count=1)


def _age_heartbeat(run, settings, extra_s: int = 5) -> None:
    SynthesisRun.objects.filter(id=run.id).update(
        heartbeat_at=timezone.now() - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S + extra_s))


def test_stale_running_row_is_reclaimed_and_the_old_holder_stops(run, settings):
    assert SynthesisRun.claim(run.id, worker="host/1")
    assert SynthesisRun.claim(run.id, worker="host/2") is False  # fresh heartbeat: the first worker is alive
    _age_heartbeat(run, settings)
    assert SynthesisRun.claim(run.id, worker="host/2") is True
    run.refresh_from_db()
    assert (run.state, run.worker, run.attempts) == (JobState.RUNNING, "host/2", 2)
    # This process now holds host/2's claim; a row naming another holder is not ours to beat or finish.
    SynthesisRun.objects.filter(id=run.id).update(worker="host/3")
    assert SynthesisRun.beat(run.id, progress=0.5) is False
    assert SynthesisRun.finish(run.id, state=JobState.SUCCEEDED) is False
    run.refresh_from_db()
    assert run.state == JobState.RUNNING and run.progress == 0.0


def test_sweep_requeues_until_claims_run_out_then_fails_with_the_reason(run, settings):
    settings.JOB_MAX_ATTEMPTS = 2
    assert SynthesisRun.claim(run.id, worker="a")
    _age_heartbeat(run, settings)
    requeued, failed = SynthesisRun.sweep_stale()
    run.refresh_from_db()
    assert (requeued, failed, run.state) == ([run.id], 0, JobState.QUEUED)
    assert "worker lost" in run.progress_message and "attempt 2 of 2" in run.progress_message
    assert SynthesisRun.claim(run.id, worker="b")
    _age_heartbeat(run, settings)
    assert SynthesisRun.claim(run.id, worker="c") is False  # out of claims: only the sweep may close it now
    last_beat = SynthesisRun.objects.get(id=run.id).heartbeat_at
    assert SynthesisRun.sweep_stale() == ([], 1)
    run.refresh_from_db()
    assert run.state == JobState.FAILED and run.finished_at
    assert run.error == f"worker lost 2 times; last heartbeat at {last_beat:%Y-%m-%d %H:%M:%S} UTC"


def test_a_live_heartbeat_keeps_the_row(run, settings):
    assert SynthesisRun.claim(run.id, worker="a")
    assert SynthesisRun.sweep_stale() == ([], 0)
    assert SynthesisRun.objects.get(id=run.id).state == JobState.RUNNING


def test_unsent_queued_rows_are_resent_once_per_timeout(run, settings):
    assert SynthesisRun.unsent() == []  # just created: its first message is on its way
    SynthesisRun.objects.filter(id=run.id).update(
        created_at=timezone.now() - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_S + 1))
    assert SynthesisRun.unsent() == [run.id]
    assert SynthesisRun.unsent() == []  # resent just now


def test_full_disk_is_named():
    message = describe_failure(OSError(errno.ENOSPC, "No space left on device", "/data/bundles/x/train.csv"))
    assert message.startswith("no space left in the data directory (writing /data/bundles/x/train.csv)")
    assert describe_failure(ValueError("bad")) == "ValueError: bad"
