"""`sandmle grade`: grade a submission file against a task bundle and print the report and reward as JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

# The command line loads before pandas does: grading and rewards are imported when a grade is asked for.
SPLITS = ("private", "public", "all")
REWARDS = ("dense", "sparse")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("grade", help="grade a submission CSV against a task bundle's private answers")
    parser.add_argument("task_dir", type=Path, help="the task bundle directory (holding private/grading.json)")
    parser.add_argument("submission", type=Path, help="the submission CSV")
    parser.add_argument("--reward", choices=REWARDS, default="dense", help="reward scheme (default dense)")
    parser.add_argument("--split", choices=SPLITS, default="private", help="answers to score on (default private)")
    parser.add_argument("--format-rate", type=float, default=1.0, help="share of well-formed agent turns, in [0, 1]")
    return parser


def run(args: argparse.Namespace) -> int:
    from sandmle.rewards.schemes import compute_reward
    from sandmle.tasks.grading import grade_submission

    # The submission is opened from its own directory without following a link; a link is graded as invalid.
    report = grade_submission(args.task_dir, args.submission, split=args.split)
    reward = compute_reward(args.reward, report=report, format_rate=args.format_rate)
    print(json.dumps({"report": report.to_dict(), "reward": reward.to_dict()}, indent=2))
    return 0
