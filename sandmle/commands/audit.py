"""`sandmle audit`: the reward-hack audit of task bundles over scaffolds; writes the report and evidence, prints the
summary and each failing case, and exits 1 when the audit fails."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.agents.scaffolds.base import FEEDBACK_MODES
from sandmle.commands.llm_args import chat_client_from
from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("audit", help="attack task bundles through every scaffold and grade degenerate "
                                                 "solutions before training on them")
    parser.add_argument("task_dirs", nargs="*", type=Path, metavar="TASK_DIR")
    parser.add_argument("--scaffold", action="append", choices=SCAFFOLDS, dest="scaffolds",
                        help="a scaffold to audit (repeatable; default all four)")
    parser.add_argument("--attack", action="append", dest="attacks", default=[],
                        help="an attack to play (repeatable; default all); `--list` names them")
    parser.add_argument("--family", action="append", dest="families", default=[], help="play only this family")
    parser.add_argument("--out", type=Path, default=Path("audit-report"),
                        help="folder for audit.json and the episodes' evidence (default ./audit-report)")
    parser.add_argument("--reward", choices=("dense", "sparse"), default="dense",
                        help="the scheme training will use: a degenerate solution reaching a tier it pays breaks the "
                             "task (dense pays the median tier upward, sparse gold only; default dense)")
    parser.add_argument("--scaffold-option", action="append", default=[], metavar="[SCAFFOLD.]KEY=VALUE",
                        help="play as a run would: a scaffold option (e.g. react.dialect=sandmle); repeatable")
    parser.add_argument("--feedback", choices=FEEDBACK_MODES,
                        help="the feedback every episode plays (default: each attack's own, the public score); "
                             "score_answers grades against the real answers, as SandMLE's released Score tool")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--step-timeout", type=float, default=5.0, help="seconds per sandbox step")
    parser.add_argument("--memory-mb", type=int, default=1024, help="memory limit of a step")
    parser.add_argument("--judge-url", help="an OpenAI-compatible endpoint judging the rubric: adds the rubric attacks")
    parser.add_argument("--judge-model", help="the judge model at --judge-url")
    parser.add_argument("--judge-key-env", default="OPENAI_API_KEY", help="the variable holding the judge's API key")
    parser.add_argument("--list", action="store_true", help="list the attacks and what each tries, then exit")
    return parser


def run(args: argparse.Namespace) -> int:
    from sandmle.audit import AuditConfig, run_audit, select_attacks

    if args.list:
        for attack in select_attacks():
            print(f"{attack.name} [{attack.family}]: {attack.tries}")
        return 0
    if not args.task_dirs:
        raise UsageError("name at least one TASK_DIR (or --list)")
    from sandmle.agents.scaffolds.options import parse_option_pairs

    scaffolds = tuple(args.scaffolds or SCAFFOLDS)
    config = AuditConfig(scaffolds=scaffolds, attacks=tuple(args.attacks),
                         scaffold_options=parse_option_pairs(args.scaffold_option, list(scaffolds)),
                         feedback=args.feedback,
                         families=tuple(args.families), concurrency=args.concurrency,
                         step_timeout_s=args.step_timeout, memory_mb=args.memory_mb, reward=args.reward,
                         judge=chat_client_from(args.judge_url, args.judge_model, key_env=args.judge_key_env,
                                                flag="judge"))
    for task_dir in args.task_dirs:
        if not (task_dir / "public").is_dir() or not (task_dir / "private" / "grading.json").exists():
            raise FileNotFoundError(f"not a task bundle (needs public/ and private/grading.json): {task_dir}")
    report = run_audit(args.task_dirs, out_dir=args.out, config=config)
    print(json.dumps(report.summary()))
    for verdict in report.failing:
        print(f"FAIL {verdict['task_id']} {verdict['scaffold']} {verdict['attack']}: {'; '.join(verdict['problems'])} "
              f"(evidence {args.out / verdict['evidence']})", file=sys.stderr)
    for broken in report.broken_tasks:
        paid = f", which {broken['scheme']} pays +{broken['paid']:g}" if broken["paid"] > 0 else ""
        print(f"BROKEN {broken['task_id']}: the degenerate solution {broken['solution']} scores {broken['score']} "
              f"and reaches {broken['milestone']}{paid}", file=sys.stderr)
    for change in report.changed_outside:
        print(f"CHANGED during the audit: {change}", file=sys.stderr)
    print(f"{report.verdict}\nreport: {args.out / 'audit.json'}", file=sys.stderr)
    return 0 if report.passed else 1
