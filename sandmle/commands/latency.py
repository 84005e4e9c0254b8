"""`sandmle latency`: time a synthesized task's reference pipelines at full scale and at its own size, print the study."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("latency", help="per-step time at full scale vs the synthesized size of a task")
    parser.add_argument("task_dir", type=Path, metavar="TASK_DIR", help="a synthesized bundle (its task.json spec)")
    parser.add_argument("--rows", type=int, default=200_000, help="training rows at full scale")
    parser.add_argument("--seeds", type=int, default=3, help="repeats of the study")
    return parser


def run(args) -> int:
    from sandmle.latency import latency_study
    from sandmle.synth.pipeline import TaskSpec

    task_json = args.task_dir / "task.json"
    if not task_json.is_file():
        raise UsageError(f"TASK_DIR: {args.task_dir} has no task.json")
    spec_data = json.loads(task_json.read_text()).get("spec") or {}
    if not spec_data:
        raise UsageError(f"TASK_DIR: {args.task_dir} has no spec (an imported task cannot be materialized again)")
    study = latency_study(TaskSpec.from_dict(spec_data), full_rows=args.rows, seeds=args.seeds)
    print(json.dumps(study, indent=2))
    return 0
