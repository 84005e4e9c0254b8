"""`sandmle eval`: run an evaluation campaign (policies x scaffolds x tasks x seeds) from flags or `--config FILE`, print the table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.commands.budget_args import add_budget_flags
from sandmle.commands.schedule_args import add_schedule_flags
from sandmle.errors import UsageError

TABLE_METRICS = ("medal_rate", "gold_rate", "silver_rate", "bronze_rate", "valid_rate", "above_median_rate",
                 "human_rank", "mean_turns", "mean_tokens", "mean_wall_s")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("eval", help="run an evaluation campaign and print the scaffold-transfer table")
    parser.add_argument("--config", type=Path, help="a YAML file of the settings below (flags given too win)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one setting (repeatable; applied last)")
    # No defaults here: the settings' defaults and ranges are sandmle.evaluation.config's, for flags and files alike.
    parser.add_argument("--policy", nargs="+", action="extend", dest="policies", metavar="SPEC",
                        help="baseline | openai:MODEL@URL | hf:PATH (several allowed)")
    parser.add_argument("--scaffold", nargs="+", action="extend", dest="scaffolds", metavar="NAME", choices=SCAFFOLDS)
    parser.add_argument("--tasks", nargs="+", action="extend", metavar="DIR",
                        help="task bundles, or folders holding task bundles")
    parser.add_argument("--seeds", type=int, help="repeats of every episode (default 3; MLE-bench asks for 3)")
    parser.add_argument("--out", help="folder for episodes.jsonl, report.json, report.csv")
    parser.add_argument("--baseline", help="the policy the other rows are compared against")
    parser.add_argument("--feedback", choices=("none", "validate", "score"), help="default score")
    add_budget_flags(parser, with_defaults=False)  # --max-turns, --max-tokens, --time-budget-s, ...
    add_schedule_flags(parser)  # --temperature-schedule annealed and its keys
    parser.add_argument("--concurrency", type=int, help="default 1")
    parser.add_argument("--scaffold-option", dest="scaffold_option_pairs", action="append", default=[],
                        metavar="[SCAFFOLD.]KEY=VALUE",
                        help="a scaffold option or preset=upstream|paper|fast for every scaffold, or for one with "
                             "SCAFFOLD.KEY=VALUE (repeatable; merged over the config file's scaffold_options)")
    parser.add_argument("--metric", default="medal_rate", choices=TABLE_METRICS, help="the metric the table shows")
    parser.add_argument("--api-key-env", dest="api_key_env", default=None,
                        help="variable holding an openai policy's API key")
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
    from sandmle.evaluation.campaign import run_campaign
    from sandmle.evaluation.config import CAMPAIGN_FIELDS, load_campaign_config
    from sandmle.evaluation.transfer import report_table
    from sandmle.settings import read_settings

    settings = read_settings(args.config) if args.config else {}
    settings.update({f.key: getattr(args, f.key) for f in CAMPAIGN_FIELDS if getattr(args, f.key, None) is not None})
    if args.scaffold_option_pairs:
        from sandmle.agents.scaffolds.options import parse_option_pairs

        scaffolds = settings.get("scaffolds")
        if not isinstance(scaffolds, list) or not scaffolds:
            raise UsageError("--scaffold-option needs the scaffolds (--scaffold or the config file's scaffolds)")
        given = settings.get("scaffold_options") if isinstance(settings.get("scaffold_options"), dict) else {}
        for scaffold, options in parse_option_pairs(args.scaffold_option_pairs, scaffolds).items():
            given[scaffold] = {**(given.get(scaffold) or {}), **options}
        settings["scaffold_options"] = given
    config = load_campaign_config(settings, args.overrides,
                                  expand_tasks=lambda paths: task_bundles([Path(path) for path in paths]))
    options = {"api_key_env": config.api_key_env} if config.api_key_env else {}
    report = run_campaign(config.spec, config.out, concurrency=config.concurrency, policy_options=options)
    print(report_table(report, args.metric))
    print(json.dumps({"episodes": report["episodes"], "complete": report["complete"], "out": str(config.out)}))
    from sandmle.evaluation.uninformative import ceiling_warning, spread_warning

    for warning in (ceiling_warning(report.get("cells") or [], args.metric),
                    spread_warning(report.get("reward_schemes"), policies=config.spec.policies)):
        if warning:
            print(f"sandmle eval: warning: {warning}", file=sys.stderr)
    failures = report["failures"]
    if report["episodes"] and failures["failed"] == report["episodes"]:
        print(f"sandmle eval: every episode failed ({failures['failed']} of {report['episodes']}), most often: "
              f"{failures['commonest_reason']}", file=sys.stderr)
        return 1
    return 0
