"""The one loop every engine-backed job runs: the engine works in a thread, this thread stores and beats.

A job's service claims its row, reads what the engine needs, then hands `run_job` the engine call and how to store
what the engine reports. The engine's threads only put items on a queue; every database write (each item stored,
each heartbeat, the final state) happens in the job's own thread, so SQLite sees one writer and a test's
transaction sees the rows. A beat answered False (cancellation asked, or the claim taken over) sets the stop flag
the engine polls.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from sandmle_web.jobs import Job, JobState, describe_failure

# What a stored item says for the heartbeat: (progress 0..1 or None, message or None).
Progress = tuple[float | None, str | None]


@dataclass
class JobRun:
    """How the engine call ended: its result, or the exception it raised; and whether the job was told to stop."""

    model: type[Job]
    job_id: int
    result: Any = None
    error: Exception | None = None
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def cancelled(self) -> bool:
        return self.stop.is_set()

    def fail(self) -> NoReturn:
        """Close the row as failed with the engine's error, and raise it again for the worker's log."""
        assert self.error is not None
        self.model.finish(self.job_id, state=JobState.FAILED, error=describe_failure(self.error))
        raise self.error


def run_job(model: type[Job], job_id: int, *, engine: Callable[[Callable[[Any], None], Callable[[], bool]], Any],
            store: Callable[[Any], Progress], poll_s: float = 0.2, beat_when_idle: bool = True) -> JobRun:
    """Run `engine(put, should_stop)` in a thread until it returns, storing each item it puts as it comes.

    store: called here with each item; returns the (progress, message) the heartbeat records.
    poll_s: how long to wait for an item before looking again (and, with beat_when_idle, beating without progress).
    The caller closes the row from the returned JobRun: what success, cancellation and failure mean differs by job.
    """
    items: queue.Queue = queue.Queue()
    run = JobRun(model=model, job_id=job_id)

    def work() -> None:
        try:
            run.result = engine(items.put, run.stop.is_set)
        except Exception as error:  # reported on the row by the caller
            run.error = error

    runner = threading.Thread(target=work, name=f"{model.__name__}-{job_id}", daemon=True)
    runner.start()
    while runner.is_alive() or not items.empty():
        try:
            item = items.get(timeout=poll_s)
        except queue.Empty:
            if beat_when_idle and not model.beat(job_id):
                run.stop.set()
            continue
        progress, message = store(item)
        if not model.beat(job_id, progress=progress, message=message):
            run.stop.set()
    runner.join()
    return run
