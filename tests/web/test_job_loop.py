"""The shared job loop: items stored in order with their progress, a cancel stops the engine, an error is kept."""

from __future__ import annotations

import threading

import pytest

from sandmle_web.job_loop import run_job
from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun


@pytest.fixture
def run(db):
    seed = Seed.objects.create(name="s", source="upload", target="y", task_type="binary", metric="accuracy",
                               modality="tabular", n_rows=10, n_features=2)
    row = SynthesisRun.objects.create(seed=seed, count=1)
    assert SynthesisRun.claim(row.id, worker="test")
    return row


def test_items_are_stored_in_this_thread_with_their_progress(run):
    stored, threads = [], []

    def store(item):
        stored.append(item)
        threads.append(threading.current_thread())
        return len(stored) / 3, f"{len(stored)} of 3"

    job = run_job(SynthesisRun, run.id, engine=lambda put, should_stop: [put(n) for n in range(3)] and "done",
                  store=store)
    run.refresh_from_db()
    assert (job.result, job.error, job.cancelled) == ("done", None, False)
    assert stored == [0, 1, 2] and set(threads) == {threading.current_thread()}
    assert (run.progress, run.progress_message, run.state) == (1.0, "3 of 3", JobState.RUNNING)


def test_a_cancel_request_stops_the_engine(run):
    SynthesisRun.request_cancel(run.id)

    def engine(put, should_stop):
        while not should_stop():
            threading.Event().wait(0.01)
        return "stopped"

    job = run_job(SynthesisRun, run.id, engine=engine, store=lambda item: (None, None), poll_s=0.01)
    assert job.cancelled and job.result == "stopped"


def test_an_engine_error_fails_the_row_and_is_raised(run):
    def engine(put, should_stop):
        raise ValueError("bad bundle")

    job = run_job(SynthesisRun, run.id, engine=engine, store=lambda item: (None, None))
    assert isinstance(job.error, ValueError)
    with pytest.raises(ValueError):
        job.fail()
    run.refresh_from_db()
    assert run.state == JobState.FAILED and run.error == "ValueError: bad bundle"
