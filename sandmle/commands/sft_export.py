"""`sandmle sft-export`: trajectories (rollout JSONL) to a conversational SFT dataset, filtered."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("sft-export", help="export trajectories as a `messages` JSONL dataset for SFT")
    parser.add_argument("trajectories", type=Path, nargs="+", help="trajectory JSONL files (sandmle rollout --out)")
    parser.add_argument("--out", type=Path, required=True, help="the dataset JSONL to write")
    parser.add_argument("--min-reward", type=float, default=None, help="keep trajectories with at least this reward")
    parser.add_argument("--reward", default="dense", help="the reward scheme --min-reward reads (default dense)")
    parser.add_argument("--milestone", default=None, help="keep valid submissions at median|bronze|silver|gold or better")
    parser.add_argument("--scaffold", default=None, help="keep one scaffold's trajectories")
    parser.add_argument("--scaffold-option", dest="scaffold_options", action="append", default=[], metavar="KEY=VALUE",
                        help="write the conversations of this dialect only (dialect=sandmle or dialect=studio: react's)")
    parser.add_argument("--policy", default=None, help="keep one policy's trajectories")
    return parser


def _read(paths: list[Path]):
    for path in paths:
        with path.open() as handle:
            for line in handle:
                if not line.strip():
                    continue
                record = json.loads(line)
                if "turns" in record:  # rollout files end with a summary line
                    yield record


def run(args: argparse.Namespace) -> int:
    from sandmle.agents.scaffolds.options import parse_option_pairs
    from sandmle.rl.sft import export_sft_dataset

    scaffold = args.scaffold or "react"
    options = parse_option_pairs(args.scaffold_options, [scaffold]).get(scaffold, {})

    for path in args.trajectories:
        if not path.is_file():
            raise FileNotFoundError(f"trajectory file not found: {path}")
    rows = export_sft_dataset(_read(args.trajectories), args.out, min_reward=args.min_reward, milestone=args.milestone,
                              scaffold=args.scaffold, policy=args.policy, reward_scheme=args.reward,
                              scaffold_options=options)
    print(json.dumps({"rows": rows, "out": str(args.out)}))
    return 0
