"""Reads of adaptive runs for the run page: the environments/ folder through the engine's reader
(sandmle/rl/environment_log.py), each lineage's success by step, the successors waiting under review hold (their
hidden rules for reviewers only), and the frontier saved with the last checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

from sandmle.rl import environment_log
from training_app.models import TrainingRun
from training_app.runs.selectors import step_records


def is_adaptive(run: TrainingRun) -> bool:
    return run.kind == "grpo" and (run.config or {}).get("environments") == "adaptive"


def is_held(run: TrainingRun) -> bool:
    return is_adaptive(run) and run.config.get("adaptive_review") == "hold"


def environments_dir(run: TrainingRun) -> Path:
    return Path(run.output_dir) / "environments"


def _step_files(run: TrainingRun):
    """(step, episode records) of each stored step whose file lies inside the run's folder."""
    root = Path(run.output_dir).resolve()
    for row in run.metrics.order_by("step"):
        path = Path(str(row.metrics.get("trajectories") or ""))
        if path.name and path.resolve().is_relative_to(root) and path.is_file() and not path.is_symlink():
            yield row.step, step_records(path)


def _hidden_rule(task_dir: str) -> str:
    """A waiting successor's private/rule.json as text (a regular file inside its bundle only)."""
    import os
    import stat

    path = Path(task_dir) / "private" / "rule.json"
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return ""
        rule = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(rule, dict):
        return ""
    words = f"{rule['description']}\n\n" if isinstance(rule.get("description"), str) else ""
    return (words + json.dumps(rule, indent=1))[:4000]


def adaptive_view(*, run: TrainingRun, show_rules: bool) -> dict | None:
    """What the run page shows of an adaptive run: successor rows, counts, waiting successors, lineage series and
    level changes; None for a fixed run. Hidden rules only with show_rules (reviewers)."""
    if not is_adaptive(run):
        return None
    env = environments_dir(run)
    events = environment_log.read_events(env)
    rows = environment_log.successor_rows(env)
    roots = environment_log.lineage_roots(run.config.get("tasks") or [], events)
    rates = environment_log.lineage_rates(_step_files(run), roots=roots, scheme=run.config.get("reward", "dense"),
                                          threshold=float(run.config.get("success_threshold", 0.5)))
    waiting = []
    if is_held(run):
        for record in environment_log.waiting_successors(env):
            entry = {"task_id": record["task_id"], "level": record.get("level"), "reason": record.get("reason", "")}
            if show_rules:
                entry["hidden_rule"] = _hidden_rule(record["task_dir"])
            waiting.append(entry)
    counts = {outcome: sum(row["outcome"] == outcome for row in rows) for outcome in ("accepted", "rejected", "pending")}
    level_changes = [{"step": row["outcome_step"], "root": row["root"], "level": row["level"]}
                     for row in rows if row["outcome"] == "accepted"]
    return {"rows": rows, "counts": counts | {"made": len(rows)}, "waiting": waiting, "rates": rates,
            "level_changes": level_changes, "held": is_held(run), "band": run.config.get("frontier_band")}


def frontier_now(run: TrainingRun) -> dict | None:
    """{step, task_ids} of the frontier the run saved with its last checkpoint (the curriculum state's slots)."""
    from sandmle.rl.run_files import RunFiles, last_checkpoint

    checkpoint = last_checkpoint(Path(run.output_dir)) if is_adaptive(run) else None
    if checkpoint is None:
        return None
    try:
        state = RunFiles(Path(run.output_dir)).read_curriculum(checkpoint, rank=0)
        slots = state["environments"]["slots"]
        task_ids = [str(slot["task_id"]) for slot in slots]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {"step": int(checkpoint.name.rsplit("-", 1)[1]), "task_ids": task_ids}
