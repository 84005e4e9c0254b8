"""`sandmle rollout`: run a scaffold x policy over task bundles, write trajectories as JSONL, print the summary."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.commands.budget_args import add_budget_flags
from sandmle.commands.llm_args import chat_client_from
from sandmle.commands.schedule_args import add_schedule_flags
from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("rollout", help="run episodes of a scaffold and policy over task bundles")
    parser.add_argument("task_dirs", nargs="+", type=Path, metavar="TASK_DIR")
    parser.add_argument("--scaffold", required=True, choices=SCAFFOLDS)
    parser.add_argument("--policy", required=True, help="baseline | openai:MODEL@URL | hf:PATH")
    parser.add_argument("--samples", type=int, default=1, help="episodes per task (the GRPO group size)")
    parser.add_argument("--out", required=True, type=Path, help="JSONL file for the trajectories")
    parser.add_argument("--feedback", default="none", choices=("none", "validate", "score"))
    parser.add_argument("--concurrency", type=int, default=1)
    add_budget_flags(parser, with_defaults=True)  # --max-turns, --max-tokens, --time-budget-s, ...
    add_schedule_flags(parser)  # --temperature-schedule annealed and its keys
    parser.add_argument("--api-key-env", default=None,
                        help="name of the environment variable holding an openai policy's API key")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge-url", help="an OpenAI-compatible endpoint that judges the rubric; adds the rubric and "
                                            "dense+rubric rewards")
    parser.add_argument("--judge-model", help="the judge model at --judge-url")
    parser.add_argument("--judge-key-env", default="OPENAI_API_KEY", help="the variable holding the judge's API key")
    parser.add_argument("--rubric-weight", type=float, default=0.2, help="the rubric's share of dense+rubric")
    parser.add_argument("--scaffold-option", dest="scaffold_options", action="append", default=[],
                        metavar="KEY=VALUE", help="a scaffold option or preset=upstream|paper|fast (repeatable); a "
                                                  "preset's budgets replace the flags above")
    return parser


def schedule_from_flags(args) -> dict:
    """The schedule the flags give, checked (ConfigError names the key as its flag)."""
    from sandmle.agents.policies.schedule import SCHEDULE_KEYS
    from sandmle.agents.policies.schedule import checked_schedule

    return checked_schedule({key: getattr(args, key) for key in SCHEDULE_KEYS if getattr(args, key) is not None})


def run(args) -> int:
    from sandmle.agents.policies import SamplingParams, make_policy
    from sandmle.agents.policies.schedule import sampling_schedule
    from sandmle.episodes.budget import episode_budget_kwargs
    from sandmle.episodes.runner import EpisodeConfig, run_batch, summarize
    from sandmle.generation import GenerationStats

    for task_dir in args.task_dirs:
        if not (task_dir / "public").is_dir() or not (task_dir / "private" / "grading.json").exists():
            raise FileNotFoundError(f"not a task bundle (needs public/ and private/grading.json): {task_dir}")
    if args.samples < 1 or args.concurrency < 1 or args.max_turns < 1 or args.max_tokens < 1:
        raise UsageError("--samples, --concurrency, --max-turns and --max-tokens must be at least 1")
    policy_options = {}
    if args.api_key_env:
        if not args.policy.startswith("openai:"):
            raise UsageError("--api-key-env applies to openai:MODEL@URL policies only")
        policy_options["api_key_env"] = args.api_key_env
    from sandmle.agents.scaffolds.options import parse_option_pairs

    scaffold_options = parse_option_pairs(args.scaffold_options, [args.scaffold]).get(args.scaffold, {})
    judge = chat_client_from(args.judge_url, args.judge_model, key_env=args.judge_key_env, flag="judge")
    policy = make_policy(args.policy, **policy_options)  # a bad spec fails here, before any output is written
    episode_budgets, sampling_budgets = episode_budget_kwargs(vars(args))
    config = EpisodeConfig(feedback=args.feedback, **episode_budgets, seed=args.seed, rubric_judge=judge,
                           rubric_weight=args.rubric_weight, scaffold_options=scaffold_options,
                           sampling=SamplingParams(**sampling_budgets, **sampling_schedule(schedule_from_flags(args))))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    stats = GenerationStats()
    with args.out.open("w") as out:
        def write(trajectory) -> None:
            out.write(trajectory.to_json() + "\n")
            out.flush()

        trajectories = run_batch(args.task_dirs, scaffold=args.scaffold, policy_spec=policy, samples=args.samples,
                                 concurrency=args.concurrency, config=config, on_trajectory=write, stats=stats)
    summary = summarize(trajectories, stats=stats)
    print(json.dumps(summary))
    from sandmle.evaluation.uninformative import spread_warning

    if args.samples > 1 and (warning := spread_warning(summary.get("reward_schemes"), policies=[args.policy])):
        print(f"sandmle rollout: warning: {warning}", file=sys.stderr)
    if summary["episodes"] and summary["failures"]["failed"] == summary["episodes"]:
        failures = summary["failures"]
        print(f"sandmle rollout: every episode failed ({failures['failed']} of {summary['episodes']}), most often: "
              f"{failures['commonest_reason']}", file=sys.stderr)
        return 1
    return 0
