"""The one episode runner: job order, announced threads, live episodes, cancellation, errors and callbacks."""

from __future__ import annotations

import contextlib
import threading

import pytest

from sandmle.episodes.threads import run_episodes


class CountingPolicy:
    """Records what a runner tells the generation layer: the threads it announces and the episodes live at once."""

    def __init__(self) -> None:
        self.expected: list[int] = []
        self.live = self.most_live = 0
        self.lock = threading.Lock()

    def expect(self, count: int) -> None:
        self.expected.append(count)

    @contextlib.contextmanager
    def episode(self):
        with self.lock:
            self.live += 1
            self.most_live = max(self.most_live, self.live)
        try:
            yield
        finally:
            with self.lock:
                self.live -= 1


def test_results_keep_job_order_with_every_episode_live_in_the_policy():
    policy = CountingPolicy()
    seen = []
    results = run_episodes(list(range(6)), lambda job: job * 10, policy=policy, concurrency=3, on_result=seen.append)
    assert results == [0, 10, 20, 30, 40, 50]
    assert sorted(seen) == results and policy.expected == [3] and policy.live == 0 and policy.most_live <= 3


def test_fewer_jobs_than_threads_announce_only_the_jobs():
    policy = CountingPolicy()
    assert run_episodes([], lambda job: job, policy=policy, concurrency=4) == []
    run_episodes([1, 2], lambda job: job, policy=policy, concurrency=4)
    assert policy.expected == [0, 2]


def test_a_failing_episode_is_on_error_or_reaches_the_caller():
    def episode(job: int) -> str:
        if job == 1:
            raise RuntimeError("boom")
        return f"ok {job}"

    results = run_episodes([0, 1, 2], episode, policy=CountingPolicy(), concurrency=2,
                           on_error=lambda job, error: f"error {job}: {error}")
    assert results == ["ok 0", "error 1: boom", "ok 2"]
    with pytest.raises(RuntimeError, match="boom"):
        run_episodes([0, 1, 2], episode, policy=CountingPolicy(), concurrency=2)


def test_cancelled_episodes_are_none_and_never_start():
    started = []
    results = run_episodes([0, 1, 2], started.append, policy=CountingPolicy(), concurrency=1,
                           should_cancel=lambda: len(started) >= 1)
    assert results[1:] == [None, None]
    assert started == [0]
