"""Scaffold options and presets: each scaffold's keys (checked with the key named), its original's defaults as the
`upstream` preset (alias `paper`), a `fast` preset for CI, and the episode budgets an option may set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sandmle.episodes.budget import BUDGETS, budget
from sandmle.errors import UsageError


@dataclass(frozen=True)
class Option:
    kind: str  # "int", "float", "choice", "bool", "int_or_all"
    help: str
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None


# The episode budgets (sandmle/episodes/budget.py) as options one scaffold's episodes may set; without them the run's
# (campaign's) budgets hold. The changes are the options' own wording and ranges, which predate the one declaration.
_OPTION_CHANGES = {
    "max_turns": {"help": "policy turns (tree scaffolds: nodes) per episode", "max": 1000},  # aira upstream: 500
    "max_tokens": {"max": 131072},
    "step_timeout_s": {"help": "seconds one sandboxed run may take"},
    "time_budget_s": {"help": "seconds one episode may take"},
    "context_tokens": {"help": "prompt tokens before the context is trimmed", "min": 256, "max": 1_048_576},
}
BUDGET_OPTIONS = {entry.key: Option(entry.type, entry.help, min=entry.min, max=entry.max)
                  for entry in (budget(declared.key, **_OPTION_CHANGES.get(declared.key, {})) for declared in BUDGETS)}

COMMON = {"record_messages": Option("bool", "keep each policy turn's prompt messages in the trajectory")}

_TREE = {
    "steps": Option("int", "nodes to grow (default: max_turns)", min=1, max=1000),
    "num_drafts": Option("int", "drafts before improving", min=1, max=100),
    "debug_prob": Option("float", "chance of debugging a buggy leaf", min=0.0, max=1.0),
    "max_debug_depth": Option("int", "debug steps in a row on one branch", min=0, max=100),
    "data_preview": Option("bool", "show a preview of the data files in the prompt"),
    "k_fold": Option("int", "cross-validation folds the prompt asks for (1: no CV)", min=1, max=20),
}

SCAFFOLD_OPTIONS: dict[str, dict[str, Option]] = {
    "react": {
        "dialect": Option("choice", "reply grammar: studio (<python>, <score/>) or sandmle (SandMLE's released "
                                    "agent: <tool_call>, <code>, Score JSON, <tool_response>)", choices=("studio", "sandmle")),
        "output_lines": Option("int", "sandmle dialect: last lines of stdout and of stderr shown", min=1, max=10000),
    },
    "aide": dict(_TREE),
    "aira": {
        **_TREE,
        "search": Option("choice", "search policy", choices=("greedy", "mcts")),
        "crossover_prob": Option("float", "chance of crossing the two best nodes (upstream greedy: 0)", min=0.0, max=1.0),
        "memory": Option("choice", "what draft/improve prompts remember: every good node (upstream simple memory) "
                                   "or the node's own branch", choices=("all", "branch")),
        "exploration": Option("float", "MCTS: UCT exploration constant", min=0.0, max=100.0),
    },
    "mle_agent": {
        "history_length": Option("int_or_all", "turns of history kept after the first exchange ('all' as upstream)",
                                 min=1, max=1000),
        "repair_attempts": Option("int", "extra calls that may repair an unparsable reply (not steps)", min=0, max=10),
    },
}

PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    # SandMLE's released ReAct (examples/deepresearch): 15 LLM calls, 20 min, Python runs of 120 s, 32k context.
    "react": {
        "upstream": {"dialect": "sandmle", "max_turns": 15, "max_tokens": 4096, "step_timeout_s": 120.0,
                     "time_budget_s": 1200.0, "context_tokens": 32768, "output_lines": 20},
        "fast": {"max_turns": 4, "max_tokens": 1024, "step_timeout_s": 30.0, "time_budget_s": 120.0},
    },
    # WecoAI/aideml's config.yaml: 20 steps, 5 drafts, debug 0.5 to depth 3, data preview, 5-fold CV, 1 h runs.
    "aide": {
        "upstream": {"steps": 20, "max_turns": 20, "num_drafts": 5, "debug_prob": 0.5, "max_debug_depth": 3,
                     "data_preview": True, "k_fold": 5, "step_timeout_s": 3600.0, "max_tokens": 8192},
        "fast": {"steps": 3, "max_turns": 3, "num_drafts": 1, "max_tokens": 1024, "step_timeout_s": 30.0,
                 "time_budget_s": 120.0},
    },
    # aira-dojo's configs/solver/mlebench/greedy.yaml (AIRA operators): 5 drafts, debug 1.0 to depth 20, no
    # crossover, memory of every good node, data preview, 500 steps, 4 h runs, 24 h in all.
    "aira": {
        "upstream": {"search": "greedy", "steps": 500, "max_turns": 500, "num_drafts": 5, "debug_prob": 1.0,
                     "max_debug_depth": 20, "crossover_prob": 0.0, "memory": "all", "data_preview": True,
                     "k_fold": 5, "step_timeout_s": 14400.0, "time_budget_s": 86400.0, "max_tokens": 8192},
        # The studio's earlier variant: fewer drafts, half the debugging, crossover and branch memory.
        "studio": {"search": "greedy", "num_drafts": 3, "debug_prob": 0.5, "max_debug_depth": 3,
                   "crossover_prob": 0.2, "memory": "branch"},
        "fast": {"steps": 3, "max_turns": 3, "num_drafts": 1, "max_tokens": 1024, "step_timeout_s": 30.0,
                 "time_budget_s": 120.0},
    },
    # MLE-Dojo's mleagent (config.yaml, run with --max-steps 30): 8192 tokens a reply, 50k prompt tokens, all history.
    "mle_agent": {
        "upstream": {"max_turns": 30, "max_tokens": 8192, "context_tokens": 50000, "history_length": "all",
                     "repair_attempts": 3, "temperature": 0.0},
        "fast": {"max_turns": 4, "max_tokens": 1024, "step_timeout_s": 30.0, "time_budget_s": 120.0},
    },
}
for _presets in PRESETS.values():
    _presets["paper"] = _presets["upstream"]

# What a scaffold uses when neither a preset nor the option sets a key.
DEFAULTS: dict[str, dict[str, Any]] = {
    "react": {"dialect": "studio", "output_lines": 20},
    "aide": {"num_drafts": 5, "debug_prob": 0.5, "max_debug_depth": 3, "data_preview": True, "k_fold": 5},
    "aira": {"search": "greedy", "num_drafts": 5, "debug_prob": 1.0, "max_debug_depth": 20, "crossover_prob": 0.0,
             "memory": "all", "data_preview": True, "k_fold": 5, "exploration": 1.414},
    "mle_agent": {"history_length": "all", "repair_attempts": 3},
}


def option_specs(scaffold: str) -> dict[str, Option]:
    return {**SCAFFOLD_OPTIONS[scaffold], **COMMON, **BUDGET_OPTIONS}


def _convert(scaffold: str, key: str, value: Any) -> Any:
    option = option_specs(scaffold)[key]
    where = f"scaffold option {key!r} of {scaffold}"
    try:
        if option.kind == "choice":
            if value not in option.choices:
                raise ValueError
            return value
        if option.kind == "bool":
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "1", "yes", "on"):
                return True
            if str(value).lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if option.kind == "int_or_all" and value == "all":
            return "all"
        if isinstance(value, bool):
            raise ValueError
        number = int(value) if option.kind in ("int", "int_or_all") else float(value)
        if option.kind in ("int", "int_or_all") and isinstance(value, float) and value != number:
            raise ValueError
    except (TypeError, ValueError):
        expected = {"choice": "one of " + ", ".join(option.choices), "bool": "true or false",
                    "int": "a whole number", "float": "a number", "int_or_all": "a whole number or 'all'"}[option.kind]
        raise UsageError(f"{where}: {value!r} is not {expected}") from None
    if (option.min is not None and number < option.min) or (option.max is not None and number > option.max):
        raise UsageError(f"{where}: {value!r} is outside [{option.min:g}, {option.max:g}]")
    return number


def check_scaffold_options(scaffold: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The options as given, each converted to its type; UsageError naming the scaffold and key otherwise."""
    from sandmle.agents.scaffolds import SCAFFOLDS

    if scaffold not in SCAFFOLDS:
        raise UsageError(f"unknown scaffold {scaffold!r}: expected one of {', '.join(SCAFFOLDS)}")
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise UsageError(f"scaffold options of {scaffold}: expected an object of KEY: VALUE")
    checked = {}
    specs = option_specs(scaffold)
    for key, value in options.items():
        if key == "preset":
            if value not in PRESETS[scaffold]:
                raise UsageError(f"scaffold option 'preset' of {scaffold}: {value!r} is not one of "
                                 + ", ".join(sorted(PRESETS[scaffold])))
            checked[key] = value
        elif key in specs:
            checked[key] = _convert(scaffold, key, value)
        else:
            raise UsageError(f"unknown scaffold option {key!r} for {scaffold}: expected preset or one of "
                             + ", ".join(sorted(specs)))
    return checked


def resolve_scaffold_options(scaffold: str, options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(scaffold settings, budget overrides): defaults, then the preset, then the options given."""
    given = check_scaffold_options(scaffold, options)
    preset = PRESETS[scaffold].get(given.get("preset"), {}) if "preset" in given else {}
    merged = {**DEFAULTS[scaffold], **preset, **{k: v for k, v in given.items() if k != "preset"}}
    if "preset" in given:
        merged["preset"] = given["preset"]
    budgets = {key: merged.pop(key) for key in list(merged) if key in BUDGET_OPTIONS}
    return merged, budgets


def parse_option_pairs(pairs: list[str], scaffolds: list[str]) -> dict[str, dict[str, Any]]:
    """`KEY=VALUE` (every scaffold given) or `SCAFFOLD.KEY=VALUE` (that one) as {scaffold: {key: value}}, checked."""
    options: dict[str, dict[str, Any]] = {name: {} for name in scaffolds}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--scaffold-option {pair!r}: expected KEY=VALUE or SCAFFOLD.KEY=VALUE")
        target, dot, name = key.partition(".")
        if dot:
            if target not in options:
                raise UsageError(f"--scaffold-option {pair!r}: {target!r} is not one of the scaffolds run "
                                 f"({', '.join(scaffolds)})")
            options[target][name] = value
        else:
            for scaffold in scaffolds:
                options[scaffold][key] = value
    return {name: check_scaffold_options(name, given) for name, given in options.items() if given}
