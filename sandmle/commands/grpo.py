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
    parser.add_argument("--plan", action="store_true", help=PLAN_HELP)
    parser.add_argument("--processes", type=_positive_int, default=None, metavar="N",
                        help="--plan: training processes (default: WORLD_SIZE or ACCELERATE_NUM_PROCESSES, else 1)")
    parser.add_argument("--params", type=_positive_float, default=None, metavar="COUNT",
                        help="--plan: the model's parameter count (8e9) where MODEL/config.json is not at hand")
    parser.add_argument("--gpu-gib", type=_positive_float, default=80.0, metavar="GIB",
                        help="--plan: one GPU's memory, to say whether the estimate fits (default 80)")
    return parser


PLAN_HELP = (
    "print what the run will need and exit, loading no model (only MODEL/config.json is read): processes, "
    "episodes a step and a process, micro-batch, gradient accumulation (episodes a process / micro-batch), the "
    "longest sequence (context_tokens + min(max_tokens, max_episode_tokens)) and GPU memory a process, P parameters: "
    "DDP 4wP (w = 2 B bf16, 4 fp32: weights, grads, Adam m and v in the weights' dtype); ZeRO-3 16P/N (bf16 weights "
    "and grads + fp32 master, m, v: the ZeRO paper's 16 B/param for mixed-precision Adam, split over N processes); "
    "activations micro x seq x hidden x layers x 34 B (Korthikanti et al. 2022, flash attention), with gradient "
    "checkpointing micro x seq x hidden x (2 x layers + 34); logits micro x completion x vocab x w. Exit 2 when the "
    "step does not split over the processes (sandmle/rl/plan.py)")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text}: a positive number")
    return value


def _gib(value: float) -> str:
    return f"{value / (1 << 30):.1f} GiB"


def plan_lines(plan, *, gpu_gib: float) -> list[str]:
    """The plan as the lines `--plan` prints."""
    lines = [f"processes: {plan.processes}",
             f"episodes a step: {plan.episodes} ({plan.group_size} x {plan.tasks_per_step} tasks)",
             f"episodes a process: {plan.episodes_per_process:g}",
             f"micro-batch: {plan.micro_batch}",
             f"gradient accumulation: {plan.accumulation if plan.accumulation is not None else '-'}",
             f"longest sequence: {plan.longest_sequence} tokens",
             f"bf16: {str(plan.bf16).lower()}, gradient checkpointing: {str(plan.gradient_checkpointing).lower()}"
             + (", lora" if plan.lora else "")]
    if plan.model is None:
        lines.append("memory: unknown (no MODEL/config.json here: give --params COUNT)")
    else:
        lines.append(f"parameters: {plan.model.params:.3g} (from {plan.model.source})")
        for sharding, memory in plan.memory.items():
            parts = [f"weights {_gib(memory.weights)}", f"grads {_gib(memory.gradients)}",
                     f"adam {_gib(memory.optimizer)}",
                     f"activations {_gib(memory.activations) if memory.activations is not None else '?'}",
                     f"logits {_gib(memory.logits) if memory.logits is not None else '?'}"]
            known = memory.activations is not None and memory.logits is not None
            fits = "fits" if memory.total <= gpu_gib * (1 << 30) else "does not fit"
            lines.append(f"memory a process, {sharding}: {'' if known else 'at least '}{_gib(memory.total)} "
                         f"({', '.join(parts)}); {fits if known or fits != 'fits' else 'activations unknown for'} "
                         f"{gpu_gib:g} GiB")
    fitting = [name for name, memory in plan.memory.items() if memory.total <= gpu_gib * (1 << 30)]
    if plan.memory and not fitting:
        # Only the levers the run has not pulled yet, then the ones it always has.
        levers = [f"set {key}" for key, on in (("gradient_checkpointing", plan.gradient_checkpointing),
                                              ("bf16", plan.bf16)) if not on]
        levers += ["lower micro_batch_size" if plan.micro_batch > 1 else "", "shorten the episodes"]
        lines.append(f"warning: no sharding fits {gpu_gib:g} GiB a GPU ({', '.join(lever for lever in levers if lever)})")
    lines.append(f"refused: {plan.problem}" if plan.problem else f"the step splits over {plan.processes} processes")
    return lines


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
    if args.plan:
        from sandmle.rl.plan import plan_run, training_processes

        plan = plan_run(config.values, processes=training_processes(args.processes), params=args.params)
        print("\n".join(plan_lines(plan, gpu_gib=args.gpu_gib)))
        return 0 if plan.runs else 2
    from sandmle.rl.grpo import check_paths, train_grpo

    check_paths(config)
    result = train_grpo(config, resume=args.resume, on_step=lambda line: print(json.dumps(line), flush=True))
    print(json.dumps({"summary": result}))
    return 0
