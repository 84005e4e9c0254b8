"""Which tasks a training step draws: uniformly, or by learnability p(1-p) from each task's recent success rate."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from sandmle.errors import UsageError

HISTORY = 16  # episodes per task that make its recent success rate
PRIOR_SUCCESS = 0.5  # an unseen task counts as maximally learnable, so every task gets tried
FLOOR = 0.02  # a task solved (or failed) every time still gets a small weight: the policy moves, so may its rate


class TaskSampler:
    """Draws task indices with its own seeded RNG; state() and load_state() let a resumed run draw the same tasks."""

    def __init__(self, task_count: int, *, mode: str = "uniform", seed: int = 0, success_threshold: float = 0.5) -> None:
        if task_count < 1:
            raise UsageError("a task sampler needs at least one task")
        if mode not in ("uniform", "learnability"):
            raise UsageError(f"task sampling {mode!r}: expected uniform or learnability")
        self.task_count = task_count
        self.mode = mode
        self.success_threshold = success_threshold
        self.rng = random.Random(seed)
        self.history: list[deque[float]] = [deque(maxlen=HISTORY) for _ in range(task_count)]

    def success_rate(self, index: int) -> float:
        seen = self.history[index]
        return sum(seen) / len(seen) if seen else PRIOR_SUCCESS

    def weights(self) -> list[float]:
        if self.mode == "uniform":
            return [1.0] * self.task_count
        return [max(p * (1.0 - p), FLOOR) for p in map(self.success_rate, range(self.task_count))]

    def draw(self, count: int) -> list[int]:
        """`count` task indices: without repeats while the set allows (a step's groups then differ), weighted."""
        chosen: list[int] = []
        while len(chosen) < count:
            pool = [i for i in range(self.task_count) if i not in chosen] or list(range(self.task_count))
            weights = [self.weights()[i] for i in pool]
            take = min(count - len(chosen), len(pool))
            for _ in range(take):
                index = self.rng.choices(range(len(pool)), weights=weights)[0]
                chosen.append(pool.pop(index))
                weights.pop(index)
        return chosen

    def record(self, index: int, rewards: list[float]) -> None:
        """The group's rewards update the task's recent success rate."""
        self.history[index].extend(1.0 if reward >= self.success_threshold else 0.0 for reward in rewards)

    def forget(self, index: int) -> None:
        """A slot whose task was replaced (adaptive environments) starts its history anew."""
        self.history[index].clear()

    def state(self) -> dict[str, Any]:
        return {"mode": self.mode, "task_count": self.task_count, "rng": _jsonable(self.rng.getstate()),
                "history": [list(seen) for seen in self.history]}

    def load_state(self, state: dict[str, Any]) -> None:
        if state.get("task_count") != self.task_count:
            raise UsageError(f"curriculum state is for {state.get('task_count')} tasks, this run has {self.task_count}")
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
        self.history = [deque(seen, maxlen=HISTORY) for seen in state["history"]]


def _jsonable(rng_state: tuple) -> list:
    version, internal, gauss = rng_state
    return [version, list(internal), gauss]
