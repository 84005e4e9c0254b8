"""The sampling schedule of rollouts, campaigns and GRPO: a constant temperature, or Exploratory Annealed Decoding.

EAD (arXiv 2510.05251) samples the t-th token of a sequence at tau_t = max(1 + tau_max - e^(t/d), tau_min), the
first c tokens (template tokens) at 1.0, with a decay rate that grows with the training step, d_s = min(d_0 + g s,
40000): hot where a reply chooses its direction, cool where it carries it out. For an MLE agent the decisive tokens
open each reply (which model, which features, whether to submit), so the schedule restarts with every reply
(`anneal_scope: reply`); `episode` counts the tokens of the whole episode instead, as the paper counts a single
response. One key table (SCHEDULE_KEYS) serves the GRPO, campaign and rollout settings; every sampling backend
(hf, the reply menu, vLLM's logits processor) reads the same SamplingParams fields through `temperature_at`.
"""

from __future__ import annotations

import math
from typing import Any

from sandmle.settings import ConfigError, Field, check_settings

TEMPERATURE_SCHEDULES = ("constant", "annealed")
ANNEAL_SCOPES = ("reply", "episode")
SCHEDULE_KEYS = ("temperature_schedule", "temperature_max", "temperature_min", "anneal_decay", "anneal_decay_growth",
                 "anneal_skip_tokens", "anneal_scope")
EAD_MAX_DECAY = 40000.0  # the paper caps the step-aware decay rate here
PAPER = "EAD, arXiv 2510.05251"


def schedule_fields() -> list[Field]:
    """SCHEDULE_KEYS as a settings table's Field objects."""
    fields = [
        Field("temperature_schedule", "choice", "constant", "constant: every token at `temperature`; annealed: "
              "Exploratory Annealed Decoding, each reply's first tokens hot and the rest cooler",
              choices=TEMPERATURE_SCHEDULES, reference=f"constant (annealed is {PAPER})"),
        Field("temperature_max", "float", 1.2, "annealed: tau_max, the temperature the schedule starts from "
              "after the skipped tokens", min=0.01, max=5.0, reference=f"1.2 ({PAPER})"),
        Field("temperature_min", "float", 0.1, "annealed: tau_min, the floor the temperature cools to",
              min=0.01, max=5.0, reference=f"0.1 ({PAPER})"),
        Field("anneal_decay", "float", 1000.0, "annealed: d_0, tokens over which the temperature falls "
              "(tau = max(1 + tau_max - e^(t/d), tau_min))", min=1.0, max=EAD_MAX_DECAY,
              reference=f"1000 ({PAPER})"),
        Field("anneal_decay_growth", "float", 5.0, "annealed: added to the decay per training step (replies "
              "lengthen as RL goes on; capped at 40000)", min=0.0, max=10000.0, reference=f"5 ({PAPER})"),
        Field("anneal_skip_tokens", "int", 10, "annealed: c, the first tokens of a reply sampled at 1.0 "
              "(template tokens)", min=0, max=100_000, reference=f"10 ({PAPER})"),
        Field("anneal_scope", "choice", "reply", "annealed: reply restarts the schedule with every reply "
              "(an agent's decisive tokens open each reply); episode counts the episode's tokens",
              choices=ANNEAL_SCOPES, reference="reply (the paper anneals one response)"),
    ]
    assert tuple(f.key for f in fields) == SCHEDULE_KEYS
    return fields


def checked_schedule(given: Any) -> dict[str, Any]:
    """A schedule given as a mapping (a campaign's or a rollout batch's `schedule`), checked by the key table: {} for
    the constant schedule, else every key with its default filled in. ConfigError ("<key>: ...") names a bad key."""
    if given in (None, {}):
        return {}
    if not isinstance(given, dict):
        raise ConfigError("schedule", f"expected a mapping of {', '.join(SCHEDULE_KEYS)}")
    unknown = sorted(set(given) - set(SCHEDULE_KEYS))
    if unknown:
        raise ConfigError(unknown[0], f"not a sampling schedule key (expected one of {', '.join(SCHEDULE_KEYS)})")
    values = check_settings(dict(given), schedule_fields())
    problem = check_schedule(values)
    if problem:
        raise ConfigError(*problem.split(": ", 1))
    return values if values["temperature_schedule"] == "annealed" else {}


def check_schedule(values: dict) -> str | None:
    """'<key>: <problem>' when the schedule's keys disagree, else None."""
    if values.get("temperature_schedule") == "annealed" and values["temperature_min"] > values["temperature_max"]:
        return (f"temperature_min: {values['temperature_min']:g} is above temperature_max "
                f"{values['temperature_max']:g}")
    return None


def sampling_schedule(values: dict) -> dict[str, Any]:
    """The SamplingParams fields for checked settings (a constant schedule leaves them at their defaults)."""
    if values.get("temperature_schedule", "constant") != "annealed":
        return {}
    return {"ead": True, "ead_tau_max": values["temperature_max"], "ead_tau_min": values["temperature_min"],
            "ead_decay": values["anneal_decay"], "ead_decay_growth": values["anneal_decay_growth"],
            "ead_warmup_tokens": values["anneal_skip_tokens"], "ead_scope": values["anneal_scope"]}


def ead_temperature(token_index: int, *, tau_max: float, tau_min: float, decay: float, warmup_tokens: int) -> float:
    """1.0 for the first `warmup_tokens` (c) tokens, then max(1 + tau_max - e^(t/d), tau_min)."""
    if token_index < warmup_tokens:
        return 1.0
    return max(1.0 + tau_max - math.exp(min(token_index / decay, 700.0)), tau_min)


def ead_decay(initial_decay: float, training_step: int, growth: float = 5.0) -> float:
    """The paper's step-aware decay rate d_s = min(d_0 + g s, 40000): replies grow during RL, so cooling slows."""
    return min(initial_decay + growth * max(training_step, 0), EAD_MAX_DECAY)


def temperature_at(token_index: int, sampling: Any) -> float:
    """The temperature the `token_index`-th token of a reply is sampled at (its episode's offset added under scope
    episode)."""
    if not sampling.ead:
        return sampling.temperature
    index = token_index + (sampling.ead_offset if sampling.ead_scope == "episode" else 0)
    return ead_temperature(index, tau_max=sampling.ead_tau_max, tau_min=sampling.ead_tau_min,
                     decay=ead_decay(sampling.ead_decay, sampling.ead_training_step, sampling.ead_decay_growth),
                     warmup_tokens=sampling.ead_warmup_tokens)


# A request's schedule as vLLM's extra args (SamplingParams.extra_args, `vllm_xargs` over its OpenAI API), flat,
# for the logits processor in sandmle/agents/policies/vllm_schedule.py.
XARG_PREFIX = "sandmle_"
SCHEDULE_FIELDS = ("ead_tau_max", "ead_tau_min", "ead_decay", "ead_warmup_tokens", "ead_training_step",
                   "ead_decay_growth", "ead_scope", "ead_offset")


def schedule_xargs(sampling: Any) -> dict[str, Any]:
    """The request's extra args for an annealed schedule ({} for a constant one)."""
    if not sampling.ead:
        return {}
    return {XARG_PREFIX + "ead": 1, **{XARG_PREFIX + name: getattr(sampling, name) for name in SCHEDULE_FIELDS}}


def schedule_from_xargs(extra_args: dict[str, Any] | None) -> Any:
    """The schedule a request carries (a SamplingParams), or None."""
    from sandmle.agents.policies.base import SamplingParams

    if not extra_args or not extra_args.get(XARG_PREFIX + "ead"):
        return None
    return SamplingParams(ead=True, **{name: extra_args[XARG_PREFIX + name] for name in SCHEDULE_FIELDS
                                 if XARG_PREFIX + name in extra_args})
