"""The tests' reply-menu model: the tiny Qwen3 choosing among the tabular menu's replies, each of whose programs first
prints who runs it and whether scikit-learn was already imported (proof of a warm-zygote sandbox step)."""

from __future__ import annotations

from pathlib import Path

from sandmle.agents.policies.menu import TABULAR_REPLY_MENU

PROBE = "import os, sys\nprint('probe', os.getuid(), 'sklearn' in sys.modules)\n"
PROBED_MENU = [reply.replace("<python>\n", "<python>\n" + PROBE, 1) for reply in TABULAR_REPLY_MENU]


def build_menu_checkpoint(directory: Path, *, seed: int = 0) -> Path:
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    return build_tiny_checkpoint(directory, seed=seed, reply_menu=PROBED_MENU)


def probe_lines(stdout: str) -> tuple[int, bool]:
    """The uid the step ran as and whether scikit-learn was in sys.modules before the program imported it."""
    line = next(line for line in stdout.splitlines() if line.startswith("probe "))
    _, uid, preloaded = line.split()
    return int(uid), preloaded == "True"


def first_prompt(trajectory: dict) -> list[dict]:
    """The messages the policy answered on the episode's first turn."""
    return trajectory["turns"][0]["messages"]
