"""What an audit covered, how it played, and what training needs it to have covered before its verdict counts.

A passed audit proves only what it tried: a run may train on a task set when the set's newest audit ran every attack
that needs no rubric judge, on the run's scaffold with the scaffold settings the run plays (react's dialect among
them), with the run's feedback mode (score_answers grades against the private answers: only an audit that played it
vouches for it), with the judge of a rubric reward, on exactly the set's tasks at their current content (a digest of
every file of each bundle), judging degenerate solutions under a reward scheme that pays at least the tiers the run's
reward pays. Anything less is a gap, named in one line each.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from sandmle.tasks.bundle import bundle_hash

# The sparse reward pays gold alone (a medal, which breaks a task under any scheme); the dense reward pays every
# milestone tier, so a run on any reward but sparse needs its degenerate solutions judged under dense.
SPARSE_ONLY, STRICTEST = "sparse", "dense"
RUBRIC_REWARDS = ("rubric", "dense+rubric")
# Version 2 records how the audit played (scaffold settings, feedback, judge, task sets); older records lack it.
COVERAGE_VERSION = 2
RECORDED_BEFORE = "the audit was recorded before audits kept how they played: run a complete audit"
# Settings that size a tree's growth only: the audit sets them itself so that a tree plays every step of an attack,
# and a run's values open no other code path (the replies, tools, prompts and host readers stay the same).
TREE_SIZES = ("steps", "num_drafts", "debug_prob", "max_debug_depth", "record_messages", "preset")
# A run on less feedback than the audit played offers fewer tools under the same grader: covered. score_answers
# grades on the private answers and rewards the last score shown, so it is covered by itself alone.
FEEDBACK_COVERED_BY = {"none": ("none", "validate", "score"), "validate": ("validate", "score"),
                       "score": ("score",), "score_answers": ("score_answers",)}


@dataclass(frozen=True)
class PlaySettings:
    """How a run plays its episodes, as far as what an episode can do goes: the gate compares it with a coverage.

    feedback None: the run plays no episodes of its own (SFT trains on stored conversations).
    judge: {"model", "host"} of a rubric reward's judge (judge_identity), None without one.
    """

    scaffold: str
    scaffold_options: dict = field(default_factory=dict)
    feedback: str | None = "score"
    reward: str = "dense"
    judge: dict | None = None


def runnable_attacks() -> list:
    """Every registered attack an audit can play without a rubric judge (the studio's audits use none)."""
    from sandmle.audit import select_attacks

    return [attack for attack in select_attacks(None) if not attack.needs_judge]


def judge_attacks() -> list:
    """The attacks that play only against a rubric judge: a rubric reward needs them run with its judge."""
    from sandmle.audit import select_attacks

    return [attack for attack in select_attacks(None) if attack.needs_judge]


def judge_identity(url: str | None, model: str | None) -> dict | None:
    """A judge as coverage records it: its model and host (host:port), never its key; None without a URL."""
    if not url:
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return {"model": model or "", "host": host}


def bundle_digest(task_dir: Path) -> str:
    """One digest of every regular file of a bundle (task.json, public/, private/ and anything else in it): what an
    episode, its grader and the studio read. Links are digested as their target's text, never followed."""
    root = Path(task_dir)
    hashes = {}
    for folder, folders, files in os.walk(root, followlinks=False):
        for name in files + [entry for entry in folders if (Path(folder) / entry).is_symlink()]:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                hashes[relative] = "link:" + os.readlink(path)
            elif path.is_file():
                hashes[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return bundle_hash(hashes)


def played_options(scaffold: str, options: dict | None) -> dict:
    """A scaffold's settings as an episode resolves them (defaults, preset, options), less the tree sizes."""
    from sandmle.agents.scaffolds.options import resolve_scaffold_options

    settings, _ = resolve_scaffold_options(scaffold, options or {})
    return {key: value for key, value in sorted(settings.items()) if key not in TREE_SIZES}


def coverage_record(*, attacks: list[str], scaffolds: list[str], tasks: dict[str, str], reward: str,
                    scaffold_options: dict[str, dict] | None = None, feedback: list[str] = ("score",),
                    judge: dict | None = None, task_sets: list[str] = ()) -> dict:
    """What an audit plays: attack names, scaffolds with the settings each played (resolved), the feedback modes,
    the reward scheme it judges degenerate solutions by, its rubric judge (model and host, or None), the task sets
    and {task id: bundle digest}."""
    scaffold_options = scaffold_options or {}
    return {"version": COVERAGE_VERSION, "attacks": sorted(attacks), "scaffolds": sorted(scaffolds),
            "scaffold_options": {name: played_options(name, scaffold_options.get(name)) for name in sorted(scaffolds)},
            "feedback": sorted(set(feedback)), "reward": reward, "judge": judge, "task_sets": sorted(task_sets),
            "tasks": dict(sorted(tasks.items()))}


def partial_note(coverage: dict, *, all_scaffolds: tuple[str, ...]) -> str:
    """"" for an audit that tried every runnable attack on every scaffold, else what it left out (a quick look)."""
    if not coverage:
        return "partial: recorded before audits kept what they covered"
    runnable = {attack.name for attack in runnable_attacks()}
    ran, scaffolds = runnable & set(coverage.get("attacks", [])), set(coverage.get("scaffolds", []))
    parts = []
    if ran != runnable:
        parts.append(f"{len(ran)} of {len(runnable)} attacks")
    if not set(all_scaffolds) <= scaffolds:
        parts.append("scaffolds " + ", ".join(sorted(scaffolds)))
    return "partial: " + "; ".join(parts) if parts else ""


def coverage_gaps(coverage: dict, *, play: PlaySettings, tasks: dict[str, str]) -> list[str]:
    """Why an audit that covered `coverage` does not vouch for a run that plays `play` on `tasks` ({task id: current
    digest}): one readable line per gap, [] when it does."""
    if not coverage or coverage.get("version", 1) < COVERAGE_VERSION:
        return [RECORDED_BEFORE]
    # The set's own changes first (the likeliest news), then how the run plays, then the attacks.
    gaps = stale_tasks(coverage, tasks)
    if play.scaffold not in coverage.get("scaffolds", []):
        gaps.append(f"scaffold {play.scaffold} not audited")
    else:
        gaps += option_gaps(coverage, play)
    gaps += feedback_gaps(coverage, play)
    judged = coverage.get("reward", STRICTEST)
    if play.reward != SPARSE_ONLY and judged != STRICTEST:
        gaps.append(f"the audit judged degenerate solutions under the {judged} reward, which pays fewer tiers than "
                    f"the run's {play.reward} reward")
    gaps += judge_gaps(coverage, play)
    gaps += attack_gaps(coverage)
    return gaps


def option_gaps(coverage: dict, play: PlaySettings) -> list[str]:
    """Each scaffold setting the run plays with a value the audit did not play (react's dialect, aira's search...)."""
    audited = (coverage.get("scaffold_options") or {}).get(play.scaffold, {})
    gaps = []
    for key, value in played_options(play.scaffold, play.scaffold_options).items():
        if key not in audited or audited[key] != value:
            was = f"{key}={_shown(audited[key])}" if key in audited else f"no {key}"
            gaps.append(f"scaffold {play.scaffold} option {key}={_shown(value)} not audited (the audit played {was})")
    return gaps


def feedback_gaps(coverage: dict, play: PlaySettings) -> list[str]:
    if play.feedback is None:
        return []
    played = coverage.get("feedback") or []
    if any(mode in played for mode in FEEDBACK_COVERED_BY.get(play.feedback, (play.feedback,))):
        return []
    why = (": its Score tool grades against the private answers, so it needs an audit that played it"
           if play.feedback == "score_answers" else "")
    return [f"feedback {play.feedback} not audited (the audit played {', '.join(played) or 'none'}){why}"]


def judge_gaps(coverage: dict, play: PlaySettings) -> list[str]:
    """A rubric reward needs the judge attacks run against the run's own judge (the same model at the same host)."""
    if play.reward not in RUBRIC_REWARDS:
        return []
    wanted = play.judge or {}
    names = [attack.name for attack in judge_attacks()]
    audited_judge = coverage.get("judge")
    ran_all = set(names) <= set(coverage.get("attacks", []))
    if ran_all and audited_judge and audited_judge == wanted:
        return []
    if not audited_judge:
        had = "the audit ran no judge (studio audits run none)"
    elif audited_judge != wanted:
        had = f"the audit's judge was {audited_judge.get('model')} at {audited_judge.get('host')}"
    else:
        had = "the audit left some of them out"
    return [f"reward {play.reward} needs an audit that ran the judge attacks ({', '.join(names)}) with its judge "
            f"{wanted.get('model') or '?'} at {wanted.get('host') or '?'}: {had}"]


def attack_gaps(coverage: dict) -> list[str]:
    ran = set(coverage.get("attacks", []))
    missing: dict[str, list[str]] = {}
    family_sizes: dict[str, int] = {}
    for attack in runnable_attacks():
        family_sizes[attack.family] = family_sizes.get(attack.family, 0) + 1
        if attack.name not in ran:
            missing.setdefault(attack.family, []).append(attack.name)
    gaps = []
    for family, names in sorted(missing.items()):
        if len(names) == family_sizes[family]:
            gaps.append(f"attack family {family} not run")
        else:
            gaps.append(f"attack{'s' * (len(names) > 1)} {', '.join(names[:3])}{' …' * (len(names) > 3)} "
                        f"of family {family} not run")
    return gaps


def stale_tasks(coverage: dict, tasks: dict[str, str]) -> list[str]:
    """The tasks added, changed or removed since the audit (it vouches for exactly the tasks it played)."""
    audited = coverage.get("tasks") or {}
    gaps = []
    for task_id, digest in sorted(tasks.items()):
        if task_id not in audited:
            gaps.append(f"task {task_id} was added after the audit")
        elif audited[task_id] != digest:
            gaps.append(f"task {task_id} changed after the audit")
    gaps += [f"task {task_id} was removed after the audit" for task_id in sorted(set(audited) - set(tasks))]
    return gaps


def _shown(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
