"""The attack registry: each attack is a scripted policy's plan (agent code, feedback calls, raw replies) that plays
through the real runner, scaffolds and sandbox, with the hole it tries and the checks that say the hole is open."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


FAMILIES = ("hunting", "links", "grading_inputs", "submissions", "feedback", "reward", "escapes")


@dataclass(frozen=True)
class Code:
    """One sandbox step; `source` may be a function of the observations seen so far (an adaptive attacker)."""

    source: str | Callable[[list[str]], str]
    why: str = "try the hole"


@dataclass(frozen=True)
class Feedback:
    """Ask the host for feedback on /workdir/submission.csv ("validate" or "score"); scaffolds without the tool skip it."""

    mode: str = "score"


@dataclass(frozen=True)
class Raw:
    """A reply written out per reply format (react, react_sandmle, mle_agent, aide, aira); formats not named reply
    with nothing."""

    replies: dict[str, str]


Step = Code | Feedback | Raw


@dataclass(frozen=True)
class AttackTarget:
    """What the worst-case attacker knows: the host's layout (paths, as hex so a path in an observation is the host's
    doing), the audit's network listener and a nonce that marks what this episode leaves behind."""

    task_dir: str
    sibling_dirs: tuple[str, ...]
    data_dirs: tuple[str, ...]
    staging_dir: str
    canary_dir: str
    listener: tuple[tuple[str, int], ...]
    nonce: str
    is_lower_better: bool
    step_timeout_s: float
    memory_mb: int
    workdir_mb: int

    def hex(self, path: str) -> str:
        """Agent code that evaluates to `path` without spelling it."""
        return f"bytes.fromhex({path.encode().hex()!r}).decode()"


@dataclass(frozen=True)
class Outcome:
    """What the audit saw of one episode, for an attack's own checks."""

    trajectory: Any
    target: AttackTarget
    workdir_bytes: int
    leftover_pids: list[int]
    network_hits: list[str]


@dataclass(frozen=True)
class Attack:
    """A named attack. `steps` builds the plan for one task; `check` returns the problems its outcome shows (the
    generic checks — reward against worth, leaks, changes outside the episode — apply to every attack).

    every_scaffold: whether the hole lies in scaffold code (host readers, reply grammars) and so is tried on every
    scaffold, or in the sandbox alone and is tried once per task.
    expect_valid: for submission attacks, whether the grader must accept the file (None: no expectation).
    """

    name: str
    family: str
    tries: str
    steps: Callable[[AttackTarget], list[Step]]
    every_scaffold: bool = True
    scaffolds: tuple[str, ...] = ()
    expect_valid: bool | None = None
    feedback: str = "score"
    needs_judge: bool = False
    check: Callable[[Outcome], list[str]] | None = None
    options: dict[str, Any] = field(default_factory=dict)


ATTACKS: dict[str, Attack] = {}


def register(attack: Attack) -> Attack:
    """Add an attack to the registry; names are unique, families fixed."""
    if attack.family not in FAMILIES:
        raise ValueError(f"attack {attack.name}: family {attack.family!r} is not one of {', '.join(FAMILIES)}")
    if attack.name in ATTACKS:
        raise ValueError(f"attack {attack.name} is registered twice")
    ATTACKS[attack.name] = attack
    return attack
