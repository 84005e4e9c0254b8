"""Successors: a task of the same lineage at another difficulty level, made and checked as synthesis makes tasks.

A successor keeps its lineage root's domain and hidden rule and takes the level's training rows, noise strength and
milestone spacing (sandmle.synth.levels); its rows are drawn anew from a seed that hashes the root's, the level and
the caller's rng, so the same lineage, level and rng always give the same bytes. It passes the critic synthesis
applies (no flat ladder, headroom left above the plain models, the skilled reference recovering enough of the
oracle's lead so gold is reachable, no leaking column, no unasked train/test shift, values on their declared ranges)
or comes back rejected with the reasons, leaving nothing behind. Its task.json records its lineage: root, parent,
level, the reason it was made and the root's spec (the next successor starts from it).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from sandmle.errors import UsageError
from sandmle.seeds.dna import TaskDNA
from sandmle.synth import calibrate, levels, noise
from sandmle.synth.domains import DomainChoice
from sandmle.synth.pipeline import TaskSpec, _calibrate, _finish_bundle, build_bundle, stage_seed
from sandmle.tasks.bundle import STAGING_PREFIX, publish_bundle, write_json
from sandmle.tasks.metrics import get_metric

ATTEMPTS = 3  # fresh rows per try; a level whose every try fails the critic is reported, not forced


@dataclass
class SuccessorResult:
    status: str  # validated | rejected
    level: int
    parent: str
    reason: str
    task_id: str | None = None
    bundle_dir: Path | None = None  # None when rejected: nothing is kept
    headroom: float | None = None
    milestones: dict = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)  # why every try was rejected
    attempts: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["bundle_dir"] = str(self.bundle_dir) if self.bundle_dir else None
        return data


def read_task(task_dir: Path) -> dict:
    try:
        task = json.loads((Path(task_dir) / "task.json").read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"task: {task_dir} has no readable task.json ({error})") from None
    if not isinstance(task, dict) or not isinstance(task.get("spec"), dict):
        raise UsageError(f"task: {task_dir} is not a synthesized task (its task.json holds no spec)")
    return task


def lineage_of(task: dict) -> dict:
    """The lineage a task belongs to: itself as root at level 0 unless its task.json says otherwise."""
    return task.get("lineage") or {"root": task["task_id"], "parent": None, "level": levels.level_of(task),
                                   "reason": "", "root_spec": task["spec"]}


def scaled_recipe(recipe: dict, scale: float) -> dict:
    """The root's noise recipe with every intensity times `scale` (capped per kind); its distractor columns kept."""
    if scale == 1.0:
        return dict(recipe)
    scaled = dict(recipe)
    for kind, cap in noise.NOISE_CAPS.items():
        if kind in scaled:
            scaled[kind] = round(min(float(scaled[kind]) * scale, cap), 4)
    scaled["scale"] = round(float(recipe.get("scale", 1.0)) * scale, 4)
    return scaled


def successor_spec(root_spec: dict, level: int, *, rng: int = 0, attempt: int = 0) -> TaskSpec:
    """The spec of the lineage's task at `level`: the root's at level 0 (first try), else the level's knobs."""
    root = TaskSpec.from_dict(root_spec)
    if level == 0 and attempt == 0 and rng == 0:
        return root
    knobs = levels.LEVELS[level]
    n_train = knobs.n_train or root.n_train
    # The first try keeps the root's rows (sandmle.synth.levels says why); a retry or another rng draws new ones.
    seed = root.rng_seed if attempt == 0 and rng == 0 else stage_seed(root.rng_seed, 1000 + level, attempt * 1000003 + rng)
    return dataclasses.replace(
        root, n_train=n_train, noise=scaled_recipe(root.noise, knobs.noise_scale), rng_seed=seed,
        difficulty={"level": level, "n_train": n_train, "noise_scale": knobs.noise_scale,
                    "milestone_shift": knobs.milestone_shift})


def successor(task_dir: Path, level: int, *, out_dir: Path, reason: str = "", rng: int = 0,
              attempts: int = ATTEMPTS) -> SuccessorResult:
    """Makes the successor of the task in `task_dir` at `level` under out_dir/<task_id>/, or says why it could not."""
    level = levels.check_level(level)
    started = time.monotonic()
    parent = read_task(Path(task_dir))
    lineage = lineage_of(parent)
    result = SuccessorResult(status="rejected", level=level, parent=parent["task_id"], reason=reason)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    staging = out_dir / f"{STAGING_PREFIX}{os.getpid()}-successor-{parent['task_id']}-{level}"
    try:
        for attempt in range(attempts):
            result.attempts = attempt + 1
            spec = successor_spec(lineage["root_spec"], level, rng=rng, attempt=attempt)
            shutil.rmtree(staging, ignore_errors=True)
            built = build_bundle(spec, staging)
            ladder, milestones, reasons = _calibrate(spec, built)
            if reasons:
                result.reasons = [f"try {attempt + 1}: {reason_text}" for reason_text in reasons]
                continue
            _finish_bundle(spec, built, ladder, milestones, DomainChoice(**spec.domain), TaskDNA.from_dict(spec.dna))
            task = json.loads((built / "task.json").read_text())
            task["lineage"] = {"root": lineage["root"], "parent": parent["task_id"], "level": level, "reason": reason,
                               "root_spec": lineage["root_spec"]}
            write_json(task, built / "task.json")
            result.bundle_dir = publish_bundle(built, out_dir / spec.task_id)
            result.status, result.task_id, result.reasons = "validated", spec.task_id, []
            result.headroom = calibrate.headroom(ladder, is_lower_better=get_metric(spec.metric).is_lower_better)
            result.milestones = milestones
            break
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    result.seconds = time.monotonic() - started
    return result
