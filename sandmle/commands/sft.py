"""`sandmle sft`: the SFT baseline from a YAML config; one JSON line per step on stdout, a summary at the end."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("sft", help="fine-tune a policy on exported trajectories (TRL SFTTrainer)")
    parser.add_argument("--config", type=Path, required=True, help="the run's YAML settings")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one setting (repeatable)")
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint in output_dir")
    return parser


def run(args: argparse.Namespace) -> int:
    from sandmle.rl.config import load_train_config

    config = load_train_config(args.config, args.overrides, kind="sft")
    from sandmle.rl.sft import train_sft

    result = train_sft(config, resume=args.resume, on_step=lambda line: print(json.dumps(line), flush=True))
    print(json.dumps({"summary": result}))
    return 0
