"""Asynchronous rollouts (rollout_mode: async): episodes for the next steps run while the trainer trains this one.

Why not TRL's `trl.experimental.async_grpo.AsyncGRPOTrainer`: it generates through a separate vLLM server, receives
weights over NCCL and takes single-turn samples from its own rollout worker. Our episodes are multi-turn, run in our
sandbox with our scaffolds, masks and grader, and must run on CPU (the hf backend) as well; so the same contract is
built here on the GRPOTrainer we use, as verl's one-step-off and fully asynchronous trainers do:

- A worker thread makes each step's batch of groups (the run's own collect function: draw, episodes, samples) with
  a behaviour copy of the policy's weights. At the start of each step the trainer's weights are copied into it
  (version = optimizer steps taken); episodes in flight take the new weights at their next turn (partial rollouts
  carried over), and every reply records the version that generated it.
- Staleness is bounded by admission, not by dropping: the batch of step b starts only once the trainer holds
  version b-1-max_staleness or newer, so no sample is ever older than max_staleness versions when it trains, and
  batches train in the order they were drawn. Nothing is discarded for being slow, so long episodes (the ones a
  drop-the-stale rule loses first) weigh what they weigh in a synchronous run; the step line reports the
  episodes' staleness (mean and max) to show the bound holds.
- The trainer corrects for the weights that sampled each token with per-token truncated importance weights
  (SandMLEGRPOTrainer.behaviour_importance_ratio): the recorded logprobs are the behaviour weights'.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any, Callable

from sandmle.agents.policies.base import PolicyReply

VERSION_KEY = "policy_version"


class BehaviourWeights:
    """A copy of the trained model that only generates; `refresh` copies the trainer's weights in between replies."""

    def __init__(self, model: Any) -> None:
        self.model = copy.deepcopy(model)
        self.model.eval()
        for parameter in self.model.parameters():
            parameter.requires_grad_(False)
        self.version = 0
        self.lock = threading.Lock()

    def refresh(self, model: Any, version: int) -> None:
        import torch

        with self.lock, torch.no_grad():
            self.model.load_state_dict(model.state_dict())
            self.version = version


class VersionedBackend:
    """A generation backend over the behaviour weights: one reply batch at a time under the weights' lock, each reply
    stamped with the version that made it (the trajectory keeps it in the turn's usage)."""

    def __init__(self, backend: Any, weights: BehaviourWeights) -> None:
        self.backend = backend
        self.weights = weights
        self.name = getattr(backend, "name", "hf:behaviour")
        self.engine = getattr(backend, "engine", None)

    def generate(self, messages: list[dict], *, sampling: Any) -> PolicyReply:
        return self.generate_batch([(messages, sampling)])[0]

    def generate_batch(self, requests: list) -> list[PolicyReply]:
        with self.weights.lock:
            version = self.weights.version
            replies = self.backend.generate_batch(requests)
        for reply in replies:
            reply.usage = {**(reply.usage or {}), VERSION_KEY: version}
        return replies

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)


def reply_versions(trajectory: dict) -> list[int]:
    """The behaviour version of each policy reply, from the usage the scaffolds keep in each turn's extra."""
    versions = []
    for turn in trajectory.get("turns") or []:
        usage = ((turn.get("extra") or {}).get("usage") if isinstance(turn, dict) else None) or {}
        if isinstance(usage, dict) and isinstance(usage.get(VERSION_KEY), int):
            versions.append(usage[VERSION_KEY])
    return versions


def episode_staleness(trajectory: dict, trained_version: int) -> int | None:
    """How many versions the oldest reply of the episode is behind the weights that train on it (None: no reply)."""
    versions = reply_versions(trajectory)
    return trained_version - min(versions) if versions else None


class RolloutWorker:
    """Makes step batches ahead of the trainer on one thread; `take(step)` hands them over in order."""

    def __init__(self, collect: Callable[[int], Any], *, first_step: int, last_step: int, max_staleness: int) -> None:
        self.collect = collect
        self.max_staleness = max_staleness
        self.last_step = last_step
        self.next_step = first_step
        self.trainer_version = first_step - 1
        self.ready: dict[int, Any] = {}
        self.error: BaseException | None = None
        self.stopping = False
        self.condition = threading.Condition()
        self.thread = threading.Thread(target=self._loop, name="sandmle-rollout-worker", daemon=True)
        self.thread.start()

    def _admitted(self, step: int) -> bool:
        return self.stopping or self.trainer_version >= step - 1 - self.max_staleness

    def _loop(self) -> None:
        try:
            while True:
                with self.condition:
                    step = self.next_step
                    if step > self.last_step:
                        return
                    self.condition.wait_for(lambda: self._admitted(step))
                    if self.stopping:
                        return
                    self.next_step += 1
                batch = self.collect(step)
                with self.condition:
                    self.ready[step] = batch
                    self.condition.notify_all()
        except BaseException as error:  # handed to the trainer's thread by take()
            with self.condition:
                self.error = error
                self.condition.notify_all()

    def advance(self, version: int) -> None:
        """The trainer holds `version` now (its weights went to the behaviour copy first)."""
        with self.condition:
            self.trainer_version = max(self.trainer_version, version)
            self.condition.notify_all()

    def take(self, step: int) -> tuple[Any, float]:
        """The batch of `step` and the seconds the trainer waited for it; the worker's error if it failed."""
        started = time.monotonic()
        with self.condition:
            self.condition.wait_for(lambda: step in self.ready or self.error is not None or not self.thread.is_alive())
            if step in self.ready:
                return self.ready.pop(step), time.monotonic() - started
            if self.error is not None:
                raise self.error
            raise RuntimeError(f"the rollout worker stopped before step {step}")

    def close(self, timeout_s: float = 600.0) -> None:
        """No new batch starts; the one in flight finishes (its episodes end on their own budgets) and is dropped."""
        with self.condition:
            self.stopping = True
            self.condition.notify_all()
        self.thread.join(timeout=timeout_s)
