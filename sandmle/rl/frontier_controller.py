"""Adaptive environments: the frontier controller that keeps a GRPO run's tasks inside the policy's success band.

Each slot of the run's task list holds one lineage (a task and its successors, sandmle.synth.successor). After each
step the controller reads every slot's recent successes: above the band, its lineage is asked for a successor one
level harder; below it, one easier. A slot waits for `frontier_evidence` episodes at its current task before it may
move, and twice that before it may move back the way it came (hysteresis: a lineage whose frontier lies between
two levels settles instead of flapping). Successors are made beside training by worker processes (a bounded queue,
a per-step limit); a step never waits for one. A successor replaces its parent in the draw once it passed
synthesis's critic and the reward-hack audit (review `audit`), and with review `hold` once a reviewer approved it
too (a file `approvals/<task_id>.approved` or `.rejected` under the run's environments/ folder, which the studio
writes). A failed, refused or slow successor leaves its parent in place, and the run's events say why.

state() / load_state() carry every slot, lineage, version count and pending successor, so a resumed run (after a
SIGKILL) goes on with the same set and makes the same pending successors again (their bytes depend only on the
lineage, the level and the rng).
"""

from __future__ import annotations

import json
import statistics
import time
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from sandmle.rl.successor_jobs import make_successor

EVENT_LOG = "environments.jsonl"
APPROVALS = "approvals"


@dataclass
class Slot:
    task_dir: str
    task_id: str
    root: str
    level: int
    outcomes: list[int] = field(default_factory=list)  # successes (1/0) at this slot's current task, oldest first
    last_move: int = 0  # +1 harder, -1 easier, 0 never moved
    played: int = 0  # episodes at this slot's current task
    retry_after: int = 0  # after a refused successor: no new request before `played` reaches this


@dataclass
class Pending:
    slot: int
    level: int
    reason: str
    rng: int
    requested_step: int
    parent_dir: str
    result: dict | None = None  # a finished successor waiting for a reviewer (review hold)
    started: float = 0.0  # monotonic, this process only


def _task_meta(task_dir: Path) -> tuple[str, str, int]:
    from sandmle.synth import levels
    from sandmle.synth.successor import lineage_of, read_task

    task = read_task(task_dir)
    return task["task_id"], lineage_of(task)["root"], levels.level_of(task)


class FrontierController:
    def __init__(self, task_dirs: list[Path], *, config: Any, out_dir: Path,
                 submit: Callable[..., Future] | None = None) -> None:
        self.band = tuple(config.frontier_band)
        self.evidence = config.frontier_evidence
        self.level_range = tuple(config.level_range)
        self.max_versions = config.max_versions_per_lineage
        self.review = config.adaptive_review
        self.per_step = config.successors_per_step
        self.max_pending = config.max_pending_successors
        self.timeout_s = config.successor_timeout_s
        self.threshold = config.success_threshold
        self.scaffold = config.scaffold
        # The successors' audit plays as the run plays (react's dialect, the feedback mode): the studio's launch gate
        # lets an adaptive run pass on that promise.
        self.scaffold_options = dict(config.scaffold_options or {})
        self.feedback = config.feedback
        self.seed = config.seed
        self.out_dir = Path(out_dir)
        self.slots = []
        for task_dir in task_dirs:
            task_id, root, level = _task_meta(task_dir)
            self.slots.append(Slot(task_dir=str(task_dir), task_id=task_id, root=root, level=level))
        self.versions: dict[str, int] = {}
        self.requests_at: dict[str, int] = {}  # "<root>@<level>": successors asked for at that level
        self.pending: list[Pending] = []
        self.futures: dict[int, Future] = {}
        self.counts = {"made": 0, "accepted": 0, "rejected": 0}
        self.step_events: list[dict] = []
        self._submit = submit
        self._executor = None

    # --- the run's hooks ------------------------------------------------------------------------------------------
    def record(self, slot: int, rewards: list[float]) -> None:
        self.slots[slot].outcomes.extend(1 if reward >= self.threshold else 0 for reward in rewards)
        self.slots[slot].played += len(rewards)
        del self.slots[slot].outcomes[:-4 * self.evidence]  # twice the longest window is all a decision reads

    def after_step(self, step: int, on_replace: Callable[[int], None]) -> dict:
        """Collect finished successors (replacing parents), give up slow ones, ask for new ones; never waits."""
        started = time.monotonic()
        self.step_events = []
        self._collect(step, on_replace)
        self._request(step)
        return {"synthesis_wait_s": time.monotonic() - started}

    def metrics(self, drawn: list[int]) -> dict:
        levels_now = [slot.level for slot in self.slots]
        rates = [self.rate(index) for index in drawn]
        inside = [rate for rate in rates if rate is not None]
        low, high = self.band
        return {"frontier_share": (sum(low <= rate <= high for rate in inside) / len(inside)) if inside else None,
                "level_mean": statistics.fmean(levels_now),
                "level_std": statistics.pstdev(levels_now) if len(levels_now) > 1 else 0.0,
                "successors_made": self.counts["made"], "successors_accepted": self.counts["accepted"],
                "successors_rejected": self.counts["rejected"], "successors_pending": len(self.pending),
                "environment_events": list(self.step_events)}

    def rate(self, index: int) -> float | None:
        window = self.slots[index].outcomes[-self.evidence:]
        return sum(window) / len(window) if len(window) >= self.evidence else None

    def task_dirs(self) -> list[Path]:
        return [Path(slot.task_dir) for slot in self.slots]

    # --- decisions ------------------------------------------------------------------------------------------------
    def wanted_move(self, index: int) -> int:
        """+1 (harder), -1 (easier) or 0 for the slot, by the rules of the module's docstring."""
        slot = self.slots[index]
        low, high = self.band
        rate = self.rate(index)
        if rate is None or slot.played < slot.retry_after:
            return 0
        move = 1 if rate > high else -1 if rate < low else 0
        if move == 0 or not self.level_range[0] <= slot.level + move <= self.level_range[1]:
            return 0
        if move == -slot.last_move and len(slot.outcomes) < 2 * self.evidence:
            return 0  # back the way it came: only on twice the evidence
        if self.versions.get(slot.root, 0) >= self.max_versions:
            return 0
        return move

    def _request(self, step: int) -> None:
        busy = {pending.slot for pending in self.pending}
        made = 0
        for index, slot in enumerate(self.slots):
            if made >= self.per_step or len(self.pending) >= self.max_pending:
                break
            move = self.wanted_move(index) if index not in busy else 0
            if not move:
                continue
            rate = self.rate(index)
            reason = (f"step {step}: success {rate:.2f} {'above' if move > 0 else 'below'} the band "
                      f"{self.band[0]:g}-{self.band[1]:g} at level {slot.level}")
            # A lineage's first request at a level keeps the root's rows (rng 0), so its levels differ by their knobs
            # alone; a later one at the same level draws other rows, so a refused successor is not asked for again
            # byte for byte and a level visited twice is not the same task id twice.
            at = f"{slot.root}@{slot.level + move}"
            earlier = self.requests_at.get(at, 0)
            rng = 0 if earlier == 0 else self.seed * 1000 + earlier
            pending = Pending(slot=index, level=slot.level + move, reason=reason, rng=rng, requested_step=step,
                              parent_dir=slot.task_dir)
            self.versions[slot.root] = self.versions.get(slot.root, 0) + 1
            self.requests_at[at] = earlier + 1
            self._start(pending)
            self.pending.append(pending)
            self.counts["made"] += 1
            made += 1
            self._event(step, "requested", pending, reason=reason)

    def _start(self, pending: Pending) -> None:
        pending.started = time.monotonic()
        kwargs = {"parent_dir": pending.parent_dir, "level": pending.level, "out_dir": str(self.out_dir),
                  "reason": pending.reason, "rng": pending.rng, "review": self.review, "scaffold": self.scaffold,
                  "scaffold_options": self.scaffold_options, "feedback": self.feedback}
        self.futures[id(pending)] = (self._submit or self._pool_submit)(make_successor, **kwargs)

    def _pool_submit(self, fn: Callable, **kwargs) -> Future:
        if self._executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # Spawned, not forked: the trainer's process holds torch threads a fork would copy mid-flight.
            self._executor = ProcessPoolExecutor(max_workers=self.max_pending,
                                                 mp_context=multiprocessing.get_context("spawn"))
        return self._executor.submit(fn, **kwargs)

    def _collect(self, step: int, on_replace: Callable[[int], None]) -> None:
        for pending in list(self.pending):
            future = self.futures.get(id(pending))
            if pending.result is None and future is not None and future.done():
                try:
                    pending.result = future.result()
                except Exception as error:  # a worker that died: the parent stays
                    pending.result = {"status": "rejected", "reasons": [f"synthesis worker failed: {error}"[:300]]}
                self.futures.pop(id(pending), None)
            if pending.result is None:
                if time.monotonic() - pending.started > self.timeout_s:
                    self._finish(step, pending, accepted=False,
                                 reasons=[f"not ready after {self.timeout_s:g} s (successor_timeout_s)"])
                    self.futures.pop(id(pending), None)
                continue
            if pending.result["status"] != "validated":
                self._finish(step, pending, accepted=False, reasons=pending.result.get("reasons") or [])
                continue
            if self.review == "hold":
                verdict = self._reviewer_verdict(pending.result["task_id"])
                if verdict is None:
                    continue  # waits for a reviewer; the parent keeps training
                if not verdict:
                    self._finish(step, pending, accepted=False, reasons=["a reviewer rejected it"])
                    continue
            slot = self.slots[pending.slot]
            task_dir = Path(pending.result["task_dir"])
            task_id, _, level = _task_meta(task_dir)
            self.slots[pending.slot] = Slot(task_dir=str(task_dir), task_id=task_id, root=slot.root, level=level,
                                            last_move=1 if level > slot.level else -1)
            on_replace(pending.slot)
            self._finish(step, pending, accepted=True, reasons=[], task_id=task_id, parent=slot.task_id)

    def _reviewer_verdict(self, task_id: str) -> bool | None:
        folder = self.out_dir / APPROVALS
        if (folder / f"{task_id}.rejected").exists():
            return False
        return True if (folder / f"{task_id}.approved").exists() else None

    def _finish(self, step: int, pending: Pending, *, accepted: bool, reasons: list[str], **extra: Any) -> None:
        self.pending.remove(pending)
        if not accepted:  # the parent stays; another request only after another window of evidence
            slot = self.slots[pending.slot]
            slot.retry_after = slot.played + self.evidence
        self.counts["accepted" if accepted else "rejected"] += 1
        self._event(step, "accepted" if accepted else "rejected", pending, reasons=reasons, **extra)

    def _event(self, step: int, kind: str, pending: Pending, **details: Any) -> None:
        event = {"step": step, "event": kind, "slot": pending.slot, "root": self.slots[pending.slot].root,
                 "level": pending.level, **details}
        self.step_events.append(event)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with (self.out_dir / EVENT_LOG).open("a") as log:
            log.write(json.dumps(event) + "\n")

    # --- resume ---------------------------------------------------------------------------------------------------
    def state(self) -> dict:
        return {"slots": [asdict(slot) for slot in self.slots], "versions": dict(self.versions),
                "requests_at": dict(self.requests_at), "counts": dict(self.counts),
                "pending": [{**asdict(p), "started": 0.0} for p in self.pending]}

    def load_state(self, state: dict) -> None:
        """The saved set, lineages and counts; pending successors are made again (same lineage, level, rng: same
        bytes), their clocks restarted."""
        self.slots = [Slot(**slot) for slot in state["slots"]]
        self.versions = dict(state["versions"])
        self.requests_at = dict(state.get("requests_at", {}))  # absent from a run saved before levels kept rows
        self.counts = dict(state["counts"])
        self.pending = []
        for saved in state["pending"]:
            pending = Pending(**saved)
            if pending.result is None:
                self._start(pending)
            self.pending.append(pending)

    def close(self) -> None:
        """Stop making successors: the run is over (a successor still in the making is dropped, its worker ended)."""
        if self._executor is not None:
            # concurrent.futures has no public way to end a running worker; its processes are ours to stop.
            for process in list((getattr(self._executor, "_processes", None) or {}).values()):
                process.terminate()
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
