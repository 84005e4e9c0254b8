"""`sandmle grpo`: a GRPO training run from a YAML config; one JSON line per step on stdout, a summary at the end."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("grpo", help="train a policy with trajectory-wise GRPO on task bundles")
    parser.add_argument("--config", type=Path, help="the run's YAML settings")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one setting (repeatable; lora.r=8 sets a nested one)")
    parser.add_argument("--preset", default=None, metavar="NAME",
                        help="start from a named recipe (sandmle-paper, cpu-smoke); the config and --set override it")
    parser.add_argument("--scaffold-option", dest="scaffold_options", action="append", default=[],
                        metavar="KEY=VALUE", help="one scaffold option (repeatable), e.g. dialect=sandmle")
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint in output_dir")
    parser.add_argument("--keys", action="store_true",
                        help="print the key table (each setting, its default and the reference trainer's value) and exit")
    return parser


def key_table() -> str:
    """Every GRPO setting as a block: key, type, default, range or choices, the reference's value, help."""
    from sandmle.rl.config import config_fields
    from sandmle.rl.presets import RUN_PRESETS

    blocks = []
    for entry in config_fields("grpo"):
        head = f"{entry['key']}  ({entry['type']}, default {'required' if entry['required'] else entry['default']})"
        lines = [head]
        if "choices" in entry:
            lines.append(f"  choices: {', '.join(entry['choices'])}")
        if "min" in entry or "max" in entry:
            low = ("above " if entry.get("min_exclusive") else "") + str(entry.get("min", "-inf"))
            lines.append(f"  range: {low} .. {entry.get('max', 'inf')}")
        if "reference" in entry:
            lines.append(f"  reference: {entry['reference']}")
        for preset, settings in RUN_PRESETS.items():
            if entry["key"] in settings:
                value, source = settings[entry["key"]]
                lines.append(f"  preset {preset}: {value} ({source})")
        lines.append(f"  {entry['help']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def run(args: argparse.Namespace) -> int:
    from sandmle.errors import UsageError
    from sandmle.rl.config import load_train_config

    if args.keys:
        print(key_table())
        return 0
    if args.config is None and not (args.preset or args.overrides):
        raise UsageError("--config FILE.yaml is required (or --preset NAME with --set, or --keys for the key table)")
    overrides = ([f"preset={args.preset}"] if args.preset else []) + list(args.overrides)
    overrides += [f"scaffold_options.{pair}" for pair in args.scaffold_options]
    config = load_train_config(args.config or {}, overrides, kind="grpo")  # refused here, before torch loads
    from sandmle.rl.grpo import check_paths, train_grpo

    check_paths(config)
    result = train_grpo(config, resume=args.resume, on_step=lambda line: print(json.dumps(line), flush=True))
    print(json.dumps({"summary": result}))
    return 0
