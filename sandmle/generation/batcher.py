"""Cross-episode batching: each episode thread hands its turn to a TurnBatcher and blocks until its batch returns.

Scaffolds keep calling `policy.generate(messages, sampling=...)` synchronously from their episode's thread; the
batcher gathers the pending turns of every live episode and makes one `generate_batch` call for them. It flushes when
every live episode is waiting on generation (nothing more can arrive), when `max_batch` turns wait, when every episode
still working is a straggler (past its typical work time: sandmle.generation.pacing), or at the latest `max_wait_s`
after the oldest pending turn. So one turn of many episodes is one call even when their sandbox steps end spread out,
and a slow sandbox step never holds the others back. One backend call runs at a time: a local model's forward pass is
not thread-safe, and one wide call is what the GPU wants.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.generation.pacing import TurnPacing

DEFAULT_MAX_BATCH = 64
DEFAULT_MAX_WAIT_S = 10.0  # a bound only: the straggler rule decides how long a turn waits for the others


class BatchBackend(Protocol):
    """A policy that can answer many turns in one call, in order."""

    name: str

    def generate_batch(self, requests: list[tuple[list[dict], SamplingParams]]) -> list[PolicyReply]: ...


@dataclass
class GenerationStats:
    """Counters of one run's generation; thread-safe. `generation_s` is wall time with a backend call running."""

    generate_calls: int = 0
    replies: int = 0
    completion_tokens: int = 0
    generation_s: float = 0.0
    wait_s: float = 0.0  # summed over turns: time a turn queued before its call started
    engine: str | None = None  # the path generation took: "hf" (token loop), "vllm" (engine), "server" (endpoint)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record_call(self, *, replies: list[PolicyReply], seconds: float, waited_s: float) -> None:
        with self._lock:
            self.generate_calls += 1
            self.replies += len(replies)
            self.completion_tokens += sum(reply_tokens(r) for r in replies)
            self.generation_s += seconds
            self.wait_s += waited_s

    def record_request(self, *, in_flight: int, tokens: int, busy_s: float) -> None:
        with self._lock:
            self.generate_calls += 1
            self.replies += in_flight
            self.completion_tokens += tokens
            self.generation_s += busy_s

    def summary(self) -> dict[str, Any]:
        """The figures a GRPO step line and a batch/campaign summary report. Tokens per second only where a model
        generated (an engine): a scripted policy's replies cost no generation, and their rate would be noise."""
        with self._lock:
            figures = {"generate_calls": self.generate_calls,
                       "mean_batch_size": self.replies / self.generate_calls if self.generate_calls else 0.0,
                       "generation_s": round(self.generation_s, 4), "wait_s": round(self.wait_s, 4)}
            if self.engine:
                figures["engine"] = self.engine
                figures["tokens_per_s"] = self.completion_tokens / self.generation_s if self.generation_s > 0 else 0.0
            return figures


def reply_tokens(reply: PolicyReply) -> int:
    if reply.completion_ids is not None:
        return len(reply.completion_ids)
    return int((reply.usage or {}).get("completion_tokens") or 0)


@dataclass
class _Turn:
    messages: list[dict]
    sampling: SamplingParams
    submitted: float
    episode: int  # the submitting thread: an episode runs on one thread
    reply: PolicyReply | None = None
    error: BaseException | None = None
    done: bool = False


class TurnBatcher:
    """Gathers turns from episode threads; the waiting thread that finds a batch ready makes the backend call."""

    def __init__(self, backend: BatchBackend, *, max_batch: int = DEFAULT_MAX_BATCH,
                 max_wait_s: float = DEFAULT_MAX_WAIT_S, stats: GenerationStats | None = None,
                 pacing: TurnPacing | None = None) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        if max_wait_s < 0:
            raise ValueError("max_wait_s must be at least 0")
        self.backend = backend
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self.stats = stats or GenerationStats()
        self.stats.engine = self.stats.engine or getattr(backend, "engine", None)
        self.pacing = pacing or TurnPacing()
        self._cond = threading.Condition()
        self._pending: list[_Turn] = []
        self._live = 0
        self._starting = 0  # announced by expect(), not yet inside episode()
        self._episodes: set[int] = set()  # threads inside episode()
        self._busy = False

    def expect(self, count: int) -> None:
        """Announces `count` episodes about to start, so the first of them does not flush alone before the others
        have entered episode() (a runner knows how many its threads start at once); their setup is timed from now."""
        with self._cond:
            self._live += count
            self._starting += count
            self.pacing.announce(count, time.monotonic())

    @contextlib.contextmanager
    def episode(self) -> Iterator[None]:
        """Marks an episode live for its whole run, so the batcher knows how many turns it may still wait for."""
        episode = threading.get_ident()
        with self._cond:
            if self._starting:
                self._starting -= 1  # counted live by expect() already
            else:
                self._live += 1
            self._episodes.add(episode)
            self.pacing.start(episode, time.monotonic())
        try:
            yield
        finally:
            with self._cond:
                self._live -= 1
                self._episodes.discard(episode)
                self.pacing.end(episode)
                self._cond.notify_all()  # one fewer to wait for: a batch may be ready now

    def submit(self, messages: list[dict], sampling: SamplingParams) -> PolicyReply:
        turn = _Turn(messages=messages, sampling=sampling, submitted=time.monotonic(), episode=threading.get_ident())
        with self._cond:
            self.pacing.submit(turn.episode, turn.submitted)
            self._pending.append(turn)
            self._cond.notify_all()
        while True:
            batch = self._next_batch(turn)
            if batch is None:
                break
            self._run(batch)
        if turn.error is not None:
            raise turn.error
        assert turn.reply is not None
        return turn.reply

    def _next_batch(self, turn: _Turn) -> list[_Turn] | None:
        """Blocks until `turn` is answered (None) or this thread should run a batch (which may not hold `turn`)."""
        with self._cond:
            while not turn.done:
                if self._busy or not self._pending:
                    self._cond.wait()
                    continue
                now = time.monotonic()
                deadline = self._flush_at()
                if now >= deadline:
                    batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch:]
                    self._busy = True
                    return batch
                self._cond.wait(deadline - now)
        return None

    def _flush_at(self) -> float:
        """When the pending turns go out: now if no more can join (all live episodes wait, or max_batch turns do),
        else once every episode still working is past its typical work time, and at the latest max_wait_s after
        the oldest pending turn. Called under the lock."""
        oldest = self._pending[0].submitted
        # Turns outside any episode() count as one live episode each (a plain caller never waits for others).
        if len(self._pending) >= min(self.max_batch, max(self._live, 1)):
            return oldest
        expected = self.pacing.wait_until()
        if expected is None:  # live episodes the pacing does not know (turns from other threads): a short grace
            expected = oldest + self.pacing.grace_s
        return min(expected, oldest + self.max_wait_s)

    def _run(self, batch: list[_Turn]) -> None:
        started = time.monotonic()
        replies: list[PolicyReply] = []
        error: BaseException | None = None
        try:
            replies = list(self.backend.generate_batch([(t.messages, t.sampling) for t in batch]))
            if len(replies) != len(batch):
                raise RuntimeError(f"generate_batch answered {len(replies)} turns for {len(batch)}")
        except BaseException as failure:  # every episode of the batch sees the failure as its own error
            error = failure
        finished = time.monotonic()
        self.stats.record_call(replies=replies, seconds=finished - started,
                               waited_s=sum(started - t.submitted for t in batch))
        with self._cond:
            for index, turn in enumerate(batch):
                if turn.episode in self._episodes:
                    self.pacing.answer(turn.episode, finished)  # its next sandbox step starts now
                if error is None:
                    turn.reply = replies[index]
                else:
                    turn.error = error
                turn.done = True
            self._busy = False
            self._cond.notify_all()


class BatchedPolicy:
    """The scaffold-facing policy over a batch backend: `generate` blocks until the turn's batch returns."""

    def __init__(self, backend: BatchBackend, *, max_batch: int = DEFAULT_MAX_BATCH,
                 max_wait_s: float = DEFAULT_MAX_WAIT_S, stats: GenerationStats | None = None) -> None:
        self.inner = backend
        self.name = backend.name
        self.batcher = TurnBatcher(backend, max_batch=max_batch, max_wait_s=max_wait_s, stats=stats)
        if hasattr(backend, "count_tokens"):
            self.count_tokens = backend.count_tokens  # scaffolds trim their context with it

    @property
    def stats(self) -> GenerationStats:
        return self.batcher.stats

    def episode(self) -> contextlib.AbstractContextManager:
        return self.batcher.episode()

    def expect(self, count: int) -> None:
        self.batcher.expect(count)

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        return self.batcher.submit(messages, sampling)


class ConcurrentPolicy:
    """A policy whose server batches for itself (an OpenAI-compatible endpoint): every live episode's request is in
    flight at once; calls are only counted. `mean_batch_size` is the mean number of requests in flight as each one
    started, `generation_s` the wall time with at least one in flight."""

    def __init__(self, policy: Any, *, stats: GenerationStats | None = None) -> None:
        self.inner = policy
        self.name = policy.name
        self.stats = stats or GenerationStats()
        self.stats.engine = self.stats.engine or getattr(policy, "engine", None)
        self._lock = threading.Lock()
        self._in_flight = 0
        self._busy_since = 0.0
        if hasattr(policy, "count_tokens"):
            self.count_tokens = policy.count_tokens

    def episode(self) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    def expect(self, count: int) -> None:
        """Nothing to wait for: every request goes out as soon as it is made."""

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        with self._lock:
            if self._in_flight == 0:
                self._busy_since = time.monotonic()
            self._in_flight += 1
            in_flight = self._in_flight
        reply: PolicyReply | None = None
        try:
            reply = self.inner.generate(messages, sampling=sampling)
            return reply
        finally:
            with self._lock:
                self._in_flight -= 1
                busy_s = 0.0
                if self._in_flight == 0:
                    busy_s = time.monotonic() - self._busy_since
            self.stats.record_request(in_flight=in_flight, tokens=reply_tokens(reply) if reply is not None else 0,
                                      busy_s=busy_s)


def generation_policy(policy: Any, *, max_batch: int = DEFAULT_MAX_BATCH, max_wait_s: float = DEFAULT_MAX_WAIT_S,
                      stats: GenerationStats | None = None) -> BatchedPolicy | ConcurrentPolicy:
    """The generation layer over any policy: batched where the backend answers many turns in one call, concurrent
    (every request in flight) otherwise. Already wrapped policies come back as they are."""
    if isinstance(policy, (BatchedPolicy, ConcurrentPolicy)):
        return policy
    if stats is not None and getattr(policy, "engine", None):
        stats.engine = policy.engine
    if hasattr(policy, "generate_batch"):
        return BatchedPolicy(policy, max_batch=max_batch, max_wait_s=max_wait_s, stats=stats)
    return ConcurrentPolicy(policy, stats=stats)
