"""Re-level a task set for a policy: measure each task's success rate with a few episodes, and replace a task outside
the band (too easy: every sample solves it; too hard: none does, so GRPO's group gives no advantage) by its successor
one level harder or easier (sandmle.synth.successor). A successor that fails synthesis's checks leaves its parent.

Writes out_dir/ as a complete new set (kept tasks copied, successors made there) with frontier.json: the band, the
policy and per task the level, the rate before, the action, the successor and its rate for the same policy.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sandmle.errors import UsageError
from sandmle.synth import levels

DEFAULT_BAND = (0.2, 0.8)
REPORT_FILE = "frontier.json"


def check_band(band: Sequence[float]) -> tuple[float, float]:
    """(low, high) with 0 <= low < high <= 1, else a UsageError naming the band."""
    try:
        low, high = (float(value) for value in band)
    except (TypeError, ValueError):
        raise UsageError(f"band: expected two numbers LOW HIGH, not {band!r}") from None
    if not all(math.isfinite(value) and 0.0 <= value <= 1.0 for value in (low, high)):
        raise UsageError(f"band: {low:g} to {high:g} lies outside 0 to 1 (success rates)")
    if low >= high:
        raise UsageError(f"band: {low:g} to {high:g} is empty or inverted (LOW must be below HIGH)")
    return low, high


def check_policy(policy: str) -> None:
    """Refuse a policy that cannot load, before any episode: a bad spec, or a local checkpoint folder that is missing
    or has no config.json. (A server's reachability shows in the episodes.)"""
    from sandmle.agents.policies import make_policy

    if not isinstance(policy, str) or not policy.strip():
        raise UsageError("policy: expected baseline, openai:MODEL@URL or hf:PATH")
    if policy.startswith("hf:"):
        folder = Path(policy[len("hf:"):])
        if not (folder / "config.json").is_file():
            raise UsageError(f"policy: {folder} is not a checkpoint folder (no config.json)")
        return
    try:
        make_policy(policy)
    except UsageError as error:
        raise UsageError(f"policy: {error}") from None


def task_dirs_of(paths: Sequence[Path]) -> list[Path]:
    """Each path as a bundle (it has task.json) or a folder of bundles, in name order; none found is a UsageError."""
    found: list[Path] = []
    for path in map(Path, paths):
        if (path / "task.json").is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if (p / "task.json").is_file()))
        else:
            raise UsageError(f"task set: {path} is neither a task bundle nor a folder of them")
    if not found:
        raise UsageError("task set: no task bundle (a folder with task.json) found")
    return found


@dataclass
class FrontierRow:
    task_id: str
    task_dir: str
    level: int
    rate: float
    samples: int
    action: str  # keep | harder | easier
    note: str = ""
    successor: dict | None = None
    rate_after: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FrontierReport:
    band: tuple[float, float]
    policy: str
    samples: int
    out_dir: Path
    rows: list[FrontierRow] = field(default_factory=list)

    def task_dirs(self) -> list[Path]:
        """The new set: each task's validated successor, else the task's copy in out_dir."""
        chosen = []
        for row in self.rows:
            successor = row.successor or {}
            chosen.append(Path(successor["bundle_dir"]) if successor.get("status") == "validated"
                          else self.out_dir / row.task_id)
        return chosen

    def to_dict(self) -> dict:
        moved = sum(1 for row in self.rows if (row.successor or {}).get("status") == "validated")
        failed = sum(1 for row in self.rows if (row.successor or {}).get("status") == "rejected")
        return {"band": list(self.band), "policy": self.policy, "samples": self.samples,
                "rows": [row.to_dict() for row in self.rows], "moved": moved, "failed": failed,
                "kept": len(self.rows) - moved, "tasks": [str(path) for path in self.task_dirs()]}


def success_rates(task_dirs: Sequence[Path], *, policy: Any, samples: int, scaffold: str, reward: str,
                  success_threshold: float, concurrency: int, config: Any,
                  should_cancel: Callable[[], bool] | None = None) -> dict[str, tuple[int, int]]:
    """{task folder: (successes, episodes)}: a success is a reward at or above the threshold under the scheme."""
    from sandmle.episodes.runner import run_batch

    trajectories = run_batch(list(task_dirs), scaffold=scaffold, policy_spec=policy, samples=samples,
                             concurrency=concurrency, config=config, should_cancel=should_cancel)
    counts = {str(path): [0, 0] for path in task_dirs}
    for trajectory in trajectories:  # run_batch's group id: "<index in task_dirs>:<task id>"
        folder = str(task_dirs[int(trajectory.group_id.split(":", 1)[0])])
        total = (trajectory.rewards.get(reward) or {}).get("total", 0.0)
        counts[folder][0] += total >= success_threshold
        counts[folder][1] += 1
    return {folder: (wins, runs) for folder, (wins, runs) in counts.items()}


def relevel_tasks(task_dirs: Sequence[Path], *, policy: str | Any, out_dir: Path, samples: int = 4,
                  band: Sequence[float] = DEFAULT_BAND, scaffold: str = "react", reward: str = "dense",
                  success_threshold: float = 0.5, concurrency: int = 4, max_turns: int = 15, feedback: str = "score",
                  measure_after: bool = True, rng: int = 0,
                  progress: Callable[[int, int, str], None] | None = None,
                  should_cancel: Callable[[], bool] | None = None) -> FrontierReport:
    """Measure, re-level and (with measure_after) measure the successors; see the module's docstring.

    `policy` is a spec (checked with check_policy before any work) or a policy object already loaded."""
    from sandmle.agents.policies import make_policy
    from sandmle.episodes.runner import EpisodeConfig
    from sandmle.synth.successor import read_task, successor

    low, high = check_band(band)
    if not 1 <= samples <= 1024:
        raise UsageError(f"samples: {samples} is outside 1 to 1024")
    task_dirs = [Path(path) for path in task_dirs]
    tasks = [read_task(path) for path in task_dirs]
    if isinstance(policy, str):
        check_policy(policy)
        name, policy = policy, make_policy(policy)
    else:
        name = getattr(policy, "name", "policy")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    config = EpisodeConfig(feedback=feedback, max_turns=max_turns)
    total = 3 if measure_after else 2

    def tell(done: int, message: str) -> None:
        if progress is not None:
            progress(done, total, message)

    tell(0, f"measuring {len(task_dirs)} tasks, {samples} episodes each")
    rates = success_rates(task_dirs, policy=policy, samples=samples, scaffold=scaffold, reward=reward,
                          success_threshold=success_threshold, concurrency=concurrency, config=config,
                          should_cancel=should_cancel)
    report = FrontierReport(band=(low, high), policy=name, samples=samples, out_dir=out_dir)
    tell(1, "making successors for the tasks outside the band")
    for path, task in zip(task_dirs, tasks):
        wins, runs = rates[str(path)]
        level = levels.level_of(task)
        rate = wins / runs if runs else 0.0
        row = FrontierRow(task_id=task["task_id"], task_dir=str(path), level=level, rate=rate, samples=runs,
                          action="keep")
        step = 1 if rate > high else -1 if rate < low else 0
        if step and not levels.MIN_LEVEL <= level + step <= levels.MAX_LEVEL:
            row.note = f"already at level {level}, the table's {'top' if step > 0 else 'bottom'}"
            step = 0
        if step and should_cancel is not None and should_cancel():
            step = 0
        if step:
            row.action = "harder" if step > 0 else "easier"
            made = successor(path, level + step, out_dir=out_dir, rng=rng,
                             reason=f"solved {wins} of {runs} at level {level}")
            row.successor = made.to_dict()
        if not row.successor or row.successor["status"] != "validated":
            target = out_dir / task["task_id"]
            if target.resolve() != path.resolve():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(path, target)
        report.rows.append(row)
    if measure_after:
        moved = [row for row in report.rows if (row.successor or {}).get("status") == "validated"]
        tell(2, f"measuring {len(moved)} successors")
        if moved:
            after = success_rates([Path(row.successor["bundle_dir"]) for row in moved], policy=policy,
                                  samples=samples, scaffold=scaffold, reward=reward,
                                  success_threshold=success_threshold, concurrency=concurrency, config=config,
                                  should_cancel=should_cancel)
            for row in moved:
                wins, runs = after[str(Path(row.successor["bundle_dir"]))]
                row.rate_after = wins / runs if runs else None
    (out_dir / REPORT_FILE).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    tell(total, f"{report.to_dict()['moved']} tasks moved, {report.to_dict()['failed']} successors rejected")
    return report
