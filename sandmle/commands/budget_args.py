"""The episode budgets' flags (--max-turns, --max-tokens, --time-budget-s, ...), made from their one declaration
(sandmle/episodes/budget.py) for `sandmle rollout` and `sandmle eval`, each flag the key it sets."""

from __future__ import annotations

# The flags these budgets had before they were named after their keys; still read.
OLDER_FLAGS = {"time_budget_s": ("--time-budget",), "step_timeout_s": ("--step-timeout",)}


def add_budget_flags(parser, *, with_defaults: bool) -> None:
    """One flag per budget, dest the key itself; with_defaults=False leaves None (not given) for a settings table."""
    from sandmle.episodes.budget import BUDGETS

    for entry in BUDGETS:
        kind = int if entry.type == "int" else float
        parser.add_argument("--" + entry.key.replace("_", "-"), *OLDER_FLAGS.get(entry.key, ()), dest=entry.key,
                            type=kind, default=entry.default if with_defaults else None,
                            help=f"{entry.help} (default {entry.default:g})")
