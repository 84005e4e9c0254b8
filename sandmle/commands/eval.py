"""`sandmle eval`: run an evaluation campaign (policies x scaffolds x tasks x seeds), write its files, print the table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.errors import UsageError

TABLE_METRICS = ("medal_rate", "gold_rate", "silver_rate", "bronze_rate", "valid_rate", "above_median_rate",
                 "human_rank", "mean_turns", "mean_tokens", "mean_wall_s")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("eval", help="run an evaluation campaign and print the scaffold-transfer table")
    parser.add_argument("--policy", nargs="+", action="extend", required=True, metavar="SPEC",
                        help="baseline | openai:MODEL@URL | hf:PATH (several allowed)")
    parser.add_argument("--scaffold", nargs="+", action="extend", required=True, metavar="NAME", choices=SCAFFOLDS)
    parser.add_argument("--tasks", nargs="+", action="extend", required=True, type=Path, metavar="DIR",
                        help="task bundles, or folders holding task bundles")
    parser.add_argument("--seeds", type=int, default=3, help="repeats of every episode (MLE-bench asks for 3)")
    parser.add_argument("--out", required=True, type=Path, help="folder for episodes.jsonl, report.json, report.csv")
    parser.add_argument("--baseline", help="the policy the other rows are compared against")
    parser.add_argument("--feedback", default="score", choices=("none", "validate", "score"))
    parser.add_argument("--max-turns", type=int, default=15)
    parser.add_argument("--time-budget", type=float, default=900.0, help="seconds per episode")
    parser.add_argument("--step-timeout", type=float, default=60.0, help="seconds per sandbox step")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--metric", default="medal_rate", choices=TABLE_METRICS, help="the metric the table shows")
    parser.add_argument("--api-key-env", default=None, help="variable holding an openai policy's API key")
    return parser


def task_bundles(paths: list[Path]) -> list[Path]:
    """Each path as a bundle, or the bundles directly inside it; a path that is neither is a usage error."""
    bundles = []
    for path in paths:
        if (path / "private" / "grading.json").is_file():
            bundles.append(path)
            continue
        inside = sorted(child for child in path.iterdir() if (child / "private" / "grading.json").is_file()) \
            if path.is_dir() else []
        if not inside:
            raise UsageError(f"--tasks: {path} is neither a task bundle nor a folder of task bundles")
        bundles += inside
    return bundles


def run(args) -> int:
    from sandmle.evaluation.campaign import CampaignSpec, run_campaign
    from sandmle.evaluation.transfer import report_table

    spec = CampaignSpec(policies=args.policy, scaffolds=args.scaffold, tasks=task_bundles(args.tasks),
                        seeds=args.seeds, baseline=args.baseline, feedback=args.feedback, max_turns=args.max_turns,
                        time_budget_s=args.time_budget, temperature=args.temperature,
                        step_timeout_s=args.step_timeout)
    spec.validate()
    if args.concurrency < 1:
        raise UsageError("--concurrency: must be at least 1")
    options = {"api_key_env": args.api_key_env} if args.api_key_env else {}
    report = run_campaign(spec, args.out, concurrency=args.concurrency, policy_options=options)
    print(report_table(report, args.metric))
    print(json.dumps({"episodes": report["episodes"], "complete": report["complete"], "out": str(args.out)}))
    return 0
