"""An episode's budgets, declared once: EpisodeConfig's and SamplingParams' defaults, the campaign and GRPO key tables
and the scaffold options that may override a budget are all built from BUDGETS, under the same key everywhere."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sandmle.settings import Field

# Far above any real reply or context, low enough that a typo (an extra zero or three) is refused, not run for weeks.
MAX_TOKENS = 1 << 21


@dataclass(frozen=True)
class Budget:
    key: str
    type: str  # "int" or "float"
    default: int | float
    help: str
    min: float
    max: float
    sampling: bool = False  # a SamplingParams field (how one reply is sampled), not an EpisodeConfig one


BUDGETS: tuple[Budget, ...] = (
    Budget("max_turns", "int", 15, "policy turns per episode", min=1, max=200),
    Budget("max_tokens", "int", 1024, "tokens one reply may sample", min=1, max=MAX_TOKENS, sampling=True),
    Budget("context_tokens", "int", 32768, "the scaffold's context window", min=64, max=MAX_TOKENS),
    Budget("step_timeout_s", "float", 60.0, "wall-clock limit of one sandboxed step", min=0.1, max=86400.0),
    Budget("time_budget_s", "float", 900.0, "wall-clock limit of one episode", min=1.0, max=7 * 86400.0),
    Budget("temperature", "float", 1.0, "sampling temperature", min=0.0, max=2.0, sampling=True),
)
BUDGET_KEYS: tuple[str, ...] = tuple(budget.key for budget in BUDGETS)
BUDGET_DEFAULTS: dict[str, Any] = {budget.key: budget.default for budget in BUDGETS}


def budget(key: str, **changes: Any) -> Budget:
    """The declared budget `key`, with a table's own help, range or default where that table differs."""
    declared = next((entry for entry in BUDGETS if entry.key == key), None)
    if declared is None:
        raise KeyError(f"{key!r} is not an episode budget; expected one of {', '.join(BUDGET_KEYS)}")
    return replace(declared, **changes)


def budget_fields(changes: dict[str, dict[str, Any]] | None = None) -> list[Field]:
    """BUDGETS as a settings table's Field objects, in declaration order. changes[key] sets that table's own help,
    min, max, default or reference for one budget."""
    changes = dict(changes or {})
    unknown = set(changes) - set(BUDGET_KEYS)
    if unknown:
        raise KeyError(f"not episode budgets: {', '.join(sorted(unknown))}")
    fields = []
    for declared in BUDGETS:
        own = dict(changes.get(declared.key, {}))
        reference = own.pop("reference", None)
        entry = replace(declared, **own)
        fields.append(Field(entry.key, entry.type, entry.default, entry.help, min=entry.min, max=entry.max,
                            reference=reference))
    return fields


def episode_budget_kwargs(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(EpisodeConfig keywords, SamplingParams keywords) of the budgets `values` holds (a checked settings table)."""
    episode = {b.key: values[b.key] for b in BUDGETS if not b.sampling and b.key in values}
    sampling = {b.key: values[b.key] for b in BUDGETS if b.sampling and b.key in values}
    return episode, sampling
