"""What an adaptive run's environments/ folder says (sandmle/rl/frontier_controller.py writes it): its events, the
successors asked for and their fates, those waiting for a reviewer (review hold), each lineage's success rate step by
step; and the reviewer's verdict file the controller waits for. Reads open only regular files inside the folder,
never following a link (the host never trusts a run's files)."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Iterable

from sandmle.rl.frontier_controller import APPROVALS, EVENT_LOG

MADE = "made"
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$")  # a verdict file's name: never a path


def _read_inside(path: Path, root: Path) -> str | None:
    """The text of a regular file under root, or None (a link, a folder, a file outside root, or no file)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) or not path.resolve().is_relative_to(root.resolve()):
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_events(env_dir: Path) -> list[dict]:
    """The event log's lines in order (requested, accepted, rejected); a line that is no JSON object is skipped."""
    text = _read_inside(Path(env_dir) / EVENT_LOG, Path(env_dir)) or ""
    events = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("event") in ("requested", "accepted", "rejected"):
            events.append(event)
    return events


def made_successors(env_dir: Path) -> list[dict]:
    """Every successor a worker finished (made/<parent>-<level>-<rng>.json): status, task_id, task_dir, reasons."""
    folder = Path(env_dir) / MADE
    made = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() and not folder.is_symlink() else []:
        try:
            record = json.loads(_read_inside(path, Path(env_dir)) or "")
        except ValueError:
            continue
        task_dir = Path(str(record.get("task_dir") or "")) if isinstance(record, dict) else Path()
        if record.get("status") == "validated" and not (
                TASK_ID.match(str(record.get("task_id") or "")) and task_dir.name
                and task_dir.resolve().is_relative_to(Path(env_dir).resolve())):
            continue  # a validated record must name a task inside this run's folder
        made.append(record)
    return made


def verdict_of(env_dir: Path, task_id: str) -> str | None:
    """approved, rejected, or None when no reviewer has decided (as the controller reads the files)."""
    folder = Path(env_dir) / APPROVALS
    if (folder / f"{task_id}.rejected").exists():
        return "rejected"
    return "approved" if (folder / f"{task_id}.approved").exists() else None


def write_verdict(env_dir: Path, task_id: str, *, approved: bool) -> Path:
    """The file the controller waits for under review hold; a task id that could name a path is refused."""
    if not TASK_ID.match(task_id):
        raise ValueError(f"task_id: {task_id!r} is not a task id")
    folder = Path(env_dir) / APPROVALS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task_id}.{'approved' if approved else 'rejected'}"
    path.write_text("")
    return path


def waiting_successors(env_dir: Path) -> list[dict]:
    """Made and validated successors no event has accepted and no reviewer has decided: under review hold, the ones
    whose parents keep training until someone approves or rejects them."""
    accepted = {event.get("task_id") for event in read_events(env_dir) if event["event"] == "accepted"}
    return [record for record in made_successors(env_dir) if record.get("status") == "validated"
            and record["task_id"] not in accepted and verdict_of(env_dir, record["task_id"]) is None]


def successor_rows(env_dir: Path) -> list[dict]:
    """One row per successor asked for: step, lineage root, level, why, and its fate (pending, accepted with its
    task id and parent, rejected with reasons). The controller keeps one request per slot at a time, so a slot's
    next outcome belongs to its open request."""
    rows, open_by_slot = [], {}
    for event in read_events(env_dir):
        if event["event"] == "requested":
            row = {"step": event.get("step"), "slot": event.get("slot"), "root": event.get("root"),
                   "level": event.get("level"), "reason": str(event.get("reason") or ""), "outcome": "pending",
                   "outcome_step": None, "task_id": "", "parent": "", "reasons": []}
            rows.append(row)
            open_by_slot[event.get("slot")] = row
            continue
        row = open_by_slot.pop(event.get("slot"), None)
        if row is None:
            continue
        row |= {"outcome": event["event"], "outcome_step": event.get("step"), "task_id": str(event.get("task_id") or ""),
                "parent": str(event.get("parent") or ""), "reasons": [str(r) for r in event.get("reasons") or []]}
    return rows


def lineage_rates(steps: Iterable[tuple[int, list[dict]]], *, roots: dict[str, str], scheme: str,
                  threshold: float) -> dict[str, dict[str, list]]:
    """{root: {"steps": [...], "rates": [...]}}: each step's share of a lineage's episodes whose reward (`scheme`'s
    total) reached `threshold`, as the controller counts success. A task id missing from `roots` is its own root."""
    rates: dict[str, dict[str, list]] = {}
    for step, records in steps:
        tally: dict[str, list[int]] = {}
        for record in records:
            total = ((record.get("rewards") or {}).get(scheme) or {}).get("total")
            if isinstance(total, (int, float)):
                root = roots.get(str(record.get("task_id")), str(record.get("task_id")))
                tally.setdefault(root, []).append(1 if total >= threshold else 0)
        for root, outcomes in tally.items():
            series = rates.setdefault(root, {"steps": [], "rates": []})
            series["steps"].append(step)
            series["rates"].append(sum(outcomes) / len(outcomes))
    return rates


def lineage_roots(task_dirs: Iterable[str | Path], events: list[dict]) -> dict[str, str]:
    """{task_id: lineage root} of the run's starting tasks (their task.json) and every accepted successor."""
    from sandmle.errors import UsageError
    from sandmle.synth.successor import lineage_of, read_task

    roots = {}
    for task_dir in task_dirs:
        try:
            task = read_task(Path(task_dir))
        except UsageError:
            continue
        roots[task["task_id"]] = lineage_of(task)["root"]
    roots |= {str(e["task_id"]): str(e.get("root")) for e in events if e["event"] == "accepted" and e.get("task_id")}
    return roots
