"""`sandmle frontier`: re-level a task set for a policy (each task outside the success band replaced by its successor
one level harder or easier); writes the new set and frontier.json, prints the before/after table. `--levels` prints
the level table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("frontier", help="re-level a task set for a policy: tasks every sample solves get "
                                                    "a harder successor, tasks none solves an easier one")
    parser.add_argument("task_set", nargs="*", type=Path, metavar="TASK_SET",
                        help="a folder of task bundles, or bundles")
    parser.add_argument("--policy", help="baseline | openai:MODEL@URL | hf:PATH")
    parser.add_argument("--out", type=Path, help="the new set's folder (kept tasks, successors, frontier.json)")
    parser.add_argument("--samples", type=int, default=4, help="episodes per task to measure its success rate")
    parser.add_argument("--band", type=float, nargs=2, default=[0.2, 0.8], metavar=("LOW", "HIGH"),
                        help="success rates kept as they are; above HIGH a task gets harder, below LOW easier")
    parser.add_argument("--scaffold", default="react", choices=SCAFFOLDS)
    parser.add_argument("--reward", default="dense", choices=("dense", "sparse"))
    parser.add_argument("--success-threshold", type=float, default=0.5, help="a reward at or above it is a success")
    parser.add_argument("--max-turns", type=int, default=15)
    parser.add_argument("--feedback", default="score", choices=("none", "validate", "score"))
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rng", type=int, default=0, help="seeds the successors' rows")
    parser.add_argument("--no-after", action="store_true", help="do not measure the successors")
    parser.add_argument("--levels", action="store_true", help="print the level table and exit")
    return parser


def run(args: argparse.Namespace) -> int:
    from sandmle.evaluation.frontier import check_band, check_policy, relevel_tasks, task_dirs_of
    from sandmle.synth.levels import level_table

    if args.levels:
        for row in level_table():
            rows = row["n_train"] if row["n_train"] is not None else "own"
            print(f"level {row['level']:>2}: rows {rows:>4}, noise x{row['noise_scale']:g}, milestone shift "
                  f"{row['milestone_shift']:+g}  ({row['why']})")
        return 0
    # Every refusal before any episode runs or any model loads.
    if not args.task_set:
        raise UsageError("TASK_SET: give a folder of task bundles (or bundles)")
    if not args.policy:
        raise UsageError("--policy: required (baseline | openai:MODEL@URL | hf:PATH)")
    if args.out is None:
        raise UsageError("--out: required (the new set's folder)")
    if not 1 <= args.samples <= 1024 or args.concurrency < 1 or args.max_turns < 1:
        raise UsageError("--samples 1..1024, --concurrency and --max-turns at least 1")
    band = check_band(args.band)
    check_policy(args.policy)
    task_dirs = task_dirs_of(args.task_set)
    report = relevel_tasks(task_dirs, policy=args.policy, out_dir=args.out, samples=args.samples, band=band,
                           scaffold=args.scaffold, reward=args.reward, success_threshold=args.success_threshold,
                           concurrency=args.concurrency, max_turns=args.max_turns, feedback=args.feedback,
                           measure_after=not args.no_after, rng=args.rng)
    print(f"{'task':<36} {'level':>5} {'rate':>6}  action   {'successor':<36} {'level':>5} {'rate':>6}")
    for row in report.rows:
        made = row.successor or {}
        after = "" if row.rate_after is None else f"{row.rate_after:.2f}"
        successor = made.get("task_id") or ("rejected: " + "; ".join(made.get("reasons", []))[:60]
                                            if made else row.note)
        level = made.get("level", "") if made.get("status") == "validated" else ""
        print(f"{row.task_id:<36} {row.level:>5} {row.rate:>6.2f}  {row.action:<8} {successor:<36} {level!s:>5} "
              f"{after:>6}")
    print(json.dumps({"summary": {key: value for key, value in report.to_dict().items() if key != "rows"}}))
    return 0
