"""`sandmle tiny-model`: save a tiny random Qwen3 with a local tokenizer (smoke runs of training, no download)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("tiny-model", help="save a tiny random Qwen3 checkpoint for smoke runs")
    parser.add_argument("--out", type=Path, required=True, help="the checkpoint directory to write")
    parser.add_argument("--seed", type=int, default=0, help="weight initialisation seed")
    parser.add_argument("--reply-menu", action="store_true",
                        help="the model answers by choosing among three tabular programs of known quality "
                             "(sandmle.agents.policies.menu), so a smoke GRPO run runs code and learns")
    parser.add_argument("--head-dim", type=int, default=16, choices=(16, 32, 64, 128),
                        help="attention head size; 64 or more for vLLM's CPU build")
    return parser


def run(args: argparse.Namespace) -> int:
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    menu = TABULAR_REPLY_MENU if args.reply_menu else None
    print(json.dumps({"checkpoint": str(build_tiny_checkpoint(args.out, seed=args.seed, reply_menu=menu,
                                                                head_dim=args.head_dim))}))
    return 0
