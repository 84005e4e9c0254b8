"""What an episode's predictions are worth graded honestly, and what changed outside it: the pieces of a verdict."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sandmle.agents.scaffolds import mle_agent, react
from sandmle.agents.scaffolds.tree import extract_plan_and_code
from sandmle.rewards.schemes import dense_reward
from sandmle.sandbox.host_files import EpisodeDir, RefusedFile
from sandmle.tasks import grading
from sandmle.tasks.grade_report import GradeReport

# Rewards and scores are floats from the same code; anything above this is a real difference.
TOLERANCE = 1e-9
OPENS_WITH_THINK = re.compile(r"\s*<think>(.*?)</think>", re.S)


@dataclass
class Verdict:
    """One attack x scaffold x task: reward earned against worth, leaks, changes outside the episode, evidence."""

    task_id: str
    scaffold: str
    attack: str
    family: str
    passed: bool
    problems: list[str] = field(default_factory=list)
    reward_earned: float = 0.0
    reward_worth: float = 0.0
    score_earned: float | None = None
    score_worth: float | None = None
    floor_score: float | None = None
    milestone_earned: str | None = None
    valid_earned: bool = False
    valid_worth: bool = False
    format_rate: float = 0.0
    honest_format_rate: float = 0.0
    termination: str = ""
    error: str | None = None
    changed: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    evidence: str = ""
    wall_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def file_hashes(roots: list[Path], *, skip: tuple[Path, ...] = ()) -> dict[str, str]:
    """sha256 of every regular file under the roots (links and special files recorded by kind, never followed)."""
    found: dict[str, str] = {}
    skipped = {str(Path(path).resolve()) for path in skip}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if str(Path(folder, d).resolve()) not in skipped]
            for name in files:
                path = Path(folder, name)
                if path.is_symlink():
                    found[str(path)] = f"link:{os.readlink(path)}"
                elif path.is_file():
                    digest = hashlib.sha256()
                    with path.open("rb") as handle:
                        for block in iter(lambda: handle.read(1 << 20), b""):
                            digest.update(block)
                    found[str(path)] = digest.hexdigest()
                else:
                    found[str(path)] = "special"
    return found


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Paths that appeared, disappeared or changed content."""
    return sorted(f"{'changed' if path in before and path in after else 'appeared' if path in after else 'removed'}: "
                  f"{path}" for path in set(before) | set(after) if before.get(path) != after.get(path))


def capture_submission(workdir: Path, task_dir: Path) -> bytes | None:
    """The submission's bytes as the episode left it: a regular file under the task's size cap, never a link."""
    spec = grading.load_grading(task_dir)
    try:
        return EpisodeDir(workdir).read_bytes("submission.csv",
                                              max_bytes=grading.submission_byte_cap(spec, grading.answer_row_count(task_dir)))
    except (RefusedFile, FileNotFoundError, OSError):
        return None


def honest_grade(data: bytes | None, clean_task: Path, scratch: Path) -> GradeReport:
    """The captured bytes graded against the clean copy of the task, from a folder no episode has touched."""
    scratch.mkdir(parents=True, exist_ok=True)
    submission = scratch / "submission.csv"
    if submission.exists():
        submission.unlink()
    if data is not None:
        submission.write_bytes(data)
    return grading.grade_submission(clean_task, submission, split="private", episode_dir=scratch)


def honest_format_rate(trajectory: dict) -> float:
    """The share of policy turns that follow the scaffold's reply grammar, re-parsed from their text; a react turn
    must also open with a non-empty <think> (SandMLE's definition of the format reward)."""
    scaffold = trajectory["scaffold"]
    dialect = ((trajectory.get("extra") or {}).get("scaffold_options") or {}).get("dialect", "studio")
    turns = [turn for turn in trajectory.get("turns") or [] if turn["role"] == "assistant"]
    if not turns:
        return 0.0
    return sum(_well_formed(scaffold, turn, dialect=dialect) for turn in turns) / len(turns)


def _well_formed(scaffold: str, turn: dict, *, dialect: str = "studio") -> bool:
    text = turn.get("text") or ""
    if turn.get("kind") == "review":
        try:
            return isinstance(json.loads(text[text.find("{"): text.rfind("}") + 1]), dict)
        except ValueError:
            return False
    if scaffold == "react" and dialect == "sandmle":  # SandMLE's own rule: the turn opens with a non-empty <think>
        opening = OPENS_WITH_THINK.match(text)
        return bool(opening and opening.group(1).strip())
    if scaffold == "react":
        opening = OPENS_WITH_THINK.match(text)
        return bool(opening and opening.group(1).strip()) and len(react.parse_reply(text)[1]) == 1
    if scaffold == "mle_agent":
        action, _ = mle_agent.parse_action(text)
        return action is not None and (action["action"] != "request_info"
                                       or action.get("info_type", "overview") in mle_agent.INFO_TYPES)
    return extract_plan_and_code(text)[2]


def worth(report: GradeReport, format_rate: float) -> float:
    return dense_reward(report=report, format_rate=format_rate).total


def better(score: float | None, than: float | None, *, is_lower_better: bool) -> bool:
    """Whether a valid score beats another by more than float noise (an invalid one beats nothing)."""
    if score is None:
        return False
    if than is None:
        return True
    return (than - score if is_lower_better else score - than) > TOLERANCE
