"""The sampling schedule's flags (--temperature-schedule, --temperature-max, ...), made from its key table
(sandmle/agents/policies/schedule.py) for `sandmle rollout` and `sandmle eval`."""

from __future__ import annotations


def add_schedule_flags(parser) -> None:
    """One flag per schedule key, dest the key itself, default None (not given)."""
    from sandmle.agents.policies.schedule import schedule_fields

    for entry in schedule_fields():
        kind = {"int": int, "float": float}.get(entry.type, str)
        parser.add_argument("--" + entry.key.replace("_", "-"), dest=entry.key, type=kind, default=None,
                            choices=entry.choices, help=f"{entry.help} (default {entry.default})")
