"""`sandmle export`: write task bundles in MLE-bench's or SandMLE's released layout."""

from __future__ import annotations

import argparse
from pathlib import Path

from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("export", help="export task bundles as MLE-bench competitions or SandMLE folders")
    parser.add_argument("task_dirs", nargs="+", type=Path, metavar="TASK_DIR")
    parser.add_argument("--format", required=True, choices=("mlebench", "sandmle"))
    parser.add_argument("--out", required=True, type=Path)
    return parser


def run(args) -> int:
    from sandmle.formats import mlebench, sandmle_layout

    for task_dir in args.task_dirs:
        if not (task_dir / "private" / "grading.json").is_file():
            raise UsageError(f"TASK_DIR: {task_dir} is not a task bundle (needs private/grading.json)")
    exporter = mlebench.export_task if args.format == "mlebench" else sandmle_layout.export_task
    for task_dir in args.task_dirs:
        print(exporter(task_dir, args.out))
    if args.format == "sandmle":
        print(f"{args.out / sandmle_layout.ID_LIST_FILE} lists the task ids. WARNING: in SandMLE's layout answer.csv "
              "sits in the folder the agent reads (the released code's choice; our sandbox never does that): see "
              f"{args.out / sandmle_layout.NOTE_FILE}")
    if args.format == "mlebench":
        print(f"copy {args.out / 'competitions'}/* into mlebench/competitions/ and use {args.out / 'data'} "
              f"as MLE-bench's data directory")
    return 0
