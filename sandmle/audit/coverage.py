"""What an audit covered, and what training needs it to have covered before its verdict counts.

A passed audit proves only what it tried: a run may train on a task set when the set's newest audit ran every attack
that needs no rubric judge, on every scaffold the run uses, on exactly the set's tasks at their current content
(a digest of each bundle's public and private files), judging degenerate solutions under a reward scheme that pays at
least the tiers the run's reward pays. Anything less is a gap, named in one line each.
"""

from __future__ import annotations

from pathlib import Path

from sandmle.tasks.bundle import bundle_hash, file_hashes

# The sparse reward pays gold alone (a medal, which breaks a task under any scheme); the dense reward pays every
# milestone tier, so a run on any reward but sparse needs its degenerate solutions judged under dense.
SPARSE_ONLY, STRICTEST = "sparse", "dense"


def runnable_attacks() -> list:
    """Every registered attack an audit can play without a rubric judge (the studio's audits use none)."""
    from sandmle.audit import select_attacks

    return [attack for attack in select_attacks(None) if not attack.needs_judge]


def bundle_digest(task_dir: Path) -> str:
    """One digest of a bundle's public and private files: what an episode and its grader read."""
    return bundle_hash(file_hashes(Path(task_dir)))


def coverage_record(*, attacks: list[str], scaffolds: list[str], tasks: dict[str, str], reward: str) -> dict:
    """What an audit plays: attack names, scaffolds, {task id: bundle digest} and the reward scheme it judges by."""
    return {"attacks": sorted(attacks), "scaffolds": sorted(scaffolds), "tasks": dict(sorted(tasks.items())),
            "reward": reward}


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


def coverage_gaps(coverage: dict, *, scaffolds: list[str], tasks: dict[str, str], reward: str) -> list[str]:
    """Why an audit that covered `coverage` does not vouch for training `tasks` ({task id: current digest}) with
    `scaffolds` under `reward`: one readable line per gap, [] when it does."""
    if not coverage:
        return ["the audit was recorded before audits kept what they covered: run a complete audit"]
    # The set's own changes first (the likeliest news), then the run's scaffolds and reward, then the attacks.
    gaps = stale_tasks(coverage, tasks)
    audited_scaffolds = set(coverage.get("scaffolds", []))
    gaps += [f"scaffold {scaffold} not audited" for scaffold in scaffolds if scaffold not in audited_scaffolds]
    judged = coverage.get("reward", STRICTEST)
    if reward != SPARSE_ONLY and judged != STRICTEST:
        gaps.append(f"the audit judged degenerate solutions under the {judged} reward, which pays fewer tiers than "
                    f"the run's {reward} reward")
    ran = set(coverage.get("attacks", []))
    missing: dict[str, list[str]] = {}
    family_sizes: dict[str, int] = {}
    for attack in runnable_attacks():
        family_sizes[attack.family] = family_sizes.get(attack.family, 0) + 1
        if attack.name not in ran:
            missing.setdefault(attack.family, []).append(attack.name)
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
