"""`sandmle latency`: time a task's reference pipelines at full scale and at its synthesized size, print the study.

The full scale is the task's own spec materialized at --rows training rows, or a real large table (--csv, --target)
against a task synthesized from that table's DNA."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("latency", help="per-step time at full scale vs the synthesized size of a task")
    parser.add_argument("task_dir", type=Path, nargs="?", metavar="TASK_DIR",
                        help="a synthesized bundle (its task.json spec); or give --csv and --target")
    parser.add_argument("--csv", type=Path, help="a real large table as the full-scale task")
    parser.add_argument("--target", help="the table's target column (with --csv)")
    parser.add_argument("--rows", type=int, default=None,
                        help="training rows at full scale (default 200000; with --csv the whole table, "
                             "or at most this)")
    parser.add_argument("--seeds", type=int, default=3, help="repeats of the study")
    parser.add_argument("--pipelines", nargs="+", metavar="NAME",
                        help="reference pipelines to time (default all: hist_gradient_boosting linear random_forest)")
    return parser


def _spec_of(task_dir: Path):
    from sandmle.synth.pipeline import TaskSpec

    task_json = task_dir / "task.json"
    if not task_json.is_file():
        raise UsageError(f"TASK_DIR: {task_dir} has no task.json")
    try:
        spec_data = json.loads(task_json.read_text()).get("spec") or {}
    except (ValueError, AttributeError):
        raise UsageError(f"TASK_DIR: {task_json} is not a JSON object") from None
    if not spec_data:
        raise UsageError(f"TASK_DIR: {task_dir} has no spec (an imported task cannot be materialized again; "
                         "give its table with --csv)")
    return TaskSpec.from_dict(spec_data)


def run(args) -> int:
    from sandmle.latency.study import FULL_ROWS, latency_study, latency_study_csv, pipeline_subset

    pipelines = pipeline_subset(args.pipelines)
    if args.csv is not None:
        if args.task_dir is not None:
            raise UsageError("give TASK_DIR or --csv, not both")
        if not args.target:
            raise UsageError("--csv needs --target COL")
        study = latency_study_csv(args.csv, target=args.target, rows=args.rows, seeds=args.seeds, pipelines=pipelines)
    else:
        if args.task_dir is None:
            raise UsageError("give TASK_DIR, or --csv PATH --target COL")
        study = latency_study(_spec_of(args.task_dir), full_rows=args.rows or FULL_ROWS, seeds=args.seeds,
                              pipelines=pipelines)
    print(json.dumps(study, indent=2))
    return 0
