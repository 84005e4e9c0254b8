"""The one episode runner: a list of episode jobs on a few threads, every episode live in the generation layer."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")


def run_episodes(jobs: list[Job], episode: Callable[[Job], Result], *, policy: Any, concurrency: int,
                 on_error: Callable[[Job, Exception], Result] | None = None,
                 on_result: Callable[[Result], None] | None = None,
                 should_cancel: Callable[[], bool] | None = None) -> list[Result | None]:
    """`episode(job)` for every job on up to `concurrency` threads, results in job order.

    Each episode runs inside `policy.episode()` (a BatchedPolicy or ConcurrentPolicy), so the turns of all live
    episodes go out in shared batches; `policy.expect` announces the first threads before they start.

    `should_cancel`, asked before each episode starts, turns the ones left into None. An episode that raises is
    `on_error(job, error)` where given, else the error reaches the caller. `on_result` sees each result as it
    finishes, one at a time.
    """
    callback_lock = threading.Lock()

    def one(job: Job) -> Result | None:
        if should_cancel is not None and should_cancel():
            return None
        try:
            with policy.episode():
                result = episode(job)
        except Exception as error:
            if on_error is None:
                raise
            result = on_error(job, error)
        if on_result is not None:
            with callback_lock:
                on_result(result)
        return result

    workers = min(concurrency, len(jobs))
    policy.expect(workers)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as executor:
        return list(executor.map(one, jobs))
