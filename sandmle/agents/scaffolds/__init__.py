"""Scaffolds: react, aide, aira and mle_agent, all over the same sandbox tools and policy interface."""

from __future__ import annotations

import importlib

from sandmle.errors import UsageError

SCAFFOLDS = ("react", "aide", "aira", "mle_agent")


def get_scaffold(name: str):
    """The scaffold module's `run(context) -> termination` function."""
    if name not in SCAFFOLDS:
        raise UsageError(f"unknown scaffold {name!r}: expected one of {', '.join(SCAFFOLDS)}")
    return importlib.import_module(f"sandmle.agents.scaffolds.{name}").run
