"""The shared job row: claim is compare-and-set, heartbeats report cancellation, stale rows fail."""

from __future__ import annotations


import pytest

from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun


@pytest.fixture
def run(db):
    seed = Seed.objects.create(name="s", source="upload", target="y", task_type="binary", metric="accuracy",
                               modality="tabular", n_rows=10, n_features=2)
    return SynthesisRun.objects.create(seed=seed, count=1)


def test_claim_once(run):
    assert SynthesisRun.claim(run.id, worker="w1") is True
    assert SynthesisRun.claim(run.id, worker="w2") is False  # a redelivered message does no harm
    run.refresh_from_db()
    assert run.state == JobState.RUNNING and run.worker == "w1" and run.started_at and run.heartbeat_at


def test_beat_progress_and_finish(run):
    SynthesisRun.claim(run.id)
    assert SynthesisRun.beat(run.id, progress=0.5, message="half") is True
    run.refresh_from_db()
    assert (run.progress, run.progress_message) == (0.5, "half")
    assert SynthesisRun.finish(run.id, state=JobState.SUCCEEDED) is True
    run.refresh_from_db()
    assert run.state == JobState.SUCCEEDED and run.progress == 1.0 and run.finished_at
    assert SynthesisRun.finish(run.id, state=JobState.FAILED, error="late") is False


def test_cancel_queued_at_once_and_running_at_next_beat(run, db):
    SynthesisRun.request_cancel(run.id)
    run.refresh_from_db()
    assert run.state == JobState.CANCELLED
    assert SynthesisRun.claim(run.id) is False

    other = SynthesisRun.objects.create(seed=run.seed, count=1)
    SynthesisRun.claim(other.id)
    SynthesisRun.request_cancel(other.id)
    assert SynthesisRun.beat(other.id, progress=0.1) is False
    other.refresh_from_db()
    assert other.state == JobState.RUNNING and other.cancel_requested

