"""The audit: every attack x scaffold x task through the real runner, each verdict against a clean copy of the
task, and every task's degenerate solutions; a report file and evidence per episode."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.audit import verdict as judge
from sandmle.audit.agent_code import FOUND_MARK
from sandmle.audit.attacks import select_attacks
from sandmle.audit.degenerate import grade_degenerate
from sandmle.audit.policy import AttackPolicy, code_steps
from sandmle.audit.registry import Attack, AttackTarget, Outcome
from sandmle.audit.summary import broken_entry, check_scheme, family_scaffold_counts, verdict_line
from sandmle.audit.watch import Listener, leftover_processes, make_canary
from sandmle.errors import UsageError
from sandmle.sandbox.host_files import remove_tree
from sandmle.sandbox.staging import owned_temp_dir, staging_root
from sandmle.tasks import grading
from sandmle.tasks.grade_report import GradeReport

REPORT_NAME = "audit.json"


@dataclass
class AuditConfig:
    """Which attacks on which scaffolds, and the budgets of each episode (short: attacks need no long steps)."""

    scaffolds: tuple[str, ...] = SCAFFOLDS
    attacks: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    concurrency: int = 2
    step_timeout_s: float = 5.0
    time_budget_s: float = 180.0
    memory_mb: int = 1024
    judge: Any = None
    # The reward scheme the degenerate solutions are judged under: a tier it pays breaks the task.
    reward: str = "dense"
    # How a run plays, so that the audit plays it too: {scaffold: options} (react's dialect studio or sandmle) and
    # one feedback mode for every episode (None: each attack's own, the public score).
    scaffold_options: dict[str, dict] = field(default_factory=dict)
    feedback: str | None = None

    def __post_init__(self) -> None:
        from sandmle.agents.scaffolds.base import FEEDBACK_MODES
        from sandmle.agents.scaffolds.options import BUDGET_OPTIONS, check_scaffold_options

        check_scheme(self.reward)
        unknown = [name for name in self.scaffolds if name not in SCAFFOLDS]
        if unknown or not self.scaffolds:
            raise UsageError(f"unknown scaffold {unknown[0] if unknown else '(none)'!r}: expected {', '.join(SCAFFOLDS)}")
        if self.concurrency < 1 or self.step_timeout_s <= 0 or self.memory_mb < 512:
            raise UsageError("concurrency must be at least 1, the step timeout positive and memory at least 512 MB")
        if self.feedback is not None and self.feedback not in FEEDBACK_MODES:
            raise UsageError(f"feedback {self.feedback!r}: expected one of {', '.join(FEEDBACK_MODES)}")
        checked = {}
        for scaffold, options in (self.scaffold_options or {}).items():
            if scaffold not in self.scaffolds:
                raise UsageError(f"scaffold options for {scaffold}, which the audit does not play "
                                 f"({', '.join(self.scaffolds)})")
            checked[scaffold] = check_scaffold_options(scaffold, options)
            # Each attack sets its own episode budgets (its turns, the audit's timeouts): none may come from here.
            budgets = sorted(set(checked[scaffold]) & set(BUDGET_OPTIONS))
            if budgets:
                raise UsageError(f"scaffold option {budgets[0]!r} of {scaffold}: an audit sets episode budgets itself")
        self.scaffold_options = checked

    def feedback_modes(self, attacks: list[Attack]) -> list[str]:
        """The feedback modes the audit's episodes play."""
        return sorted({self.feedback or attack.feedback for attack in attacks})


@dataclass
class AuditReport:
    """The audit's verdicts, degenerate scores and broken tasks (a degenerate solution reaches a medal or a tier the
    reward scheme pays); passed only when every verdict passed, no task is broken and nothing outside the episodes
    changed."""

    started_at: str
    tasks: list[str]
    scaffolds: list[str]
    attacks: list[dict]
    verdicts: list[dict] = field(default_factory=list)
    degenerate: list[dict] = field(default_factory=list)
    broken_tasks: list[dict] = field(default_factory=list)
    changed_outside: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    reward_scheme: str = "dense"
    scaffold_options: dict = field(default_factory=dict)
    feedback: list[str] = field(default_factory=list)
    family_scaffold: list[dict] = field(default_factory=list)
    verdict: str = ""
    wall_s: float = 0.0
    passed: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def failing(self) -> list[dict]:
        return [v for v in self.verdicts if not v["passed"]]

    def summary(self) -> dict:
        return {"attacks": len(self.attacks), "episodes": len(self.verdicts),
                "contained": sum(v["passed"] for v in self.verdicts), "failing": len(self.failing),
                "broken_tasks": len(self.broken_tasks), "passed": self.passed, "verdict": self.verdict,
                "wall_s": round(self.wall_s, 1)}


def task_id_of(task_dir: Path) -> str:
    try:
        return str(json.loads((Path(task_dir) / "task.json").read_text()).get("task_id", Path(task_dir).name))
    except (OSError, ValueError, AttributeError):
        return Path(task_dir).name


def plan_episodes(task_dirs: list[Path], attacks: list[Attack], scaffolds: tuple[str, ...]) -> list[tuple[Path, str, Attack]]:
    """Every (task, scaffold, attack) to play: scaffold-bound attacks on each scaffold, sandbox-bound ones once."""
    jobs = []
    for task in task_dirs:
        for attack in attacks:
            fitting = [name for name in scaffolds if not attack.scaffolds or name in attack.scaffolds]
            jobs += [(Path(task), scaffold, attack) for scaffold in (fitting if attack.every_scaffold else fitting[:1])]
    return jobs


def run_audit(
    task_dirs: list[Path],
    *,
    out_dir: Path,
    config: AuditConfig | None = None,
    pool: Any = None,
    on_verdict: Callable[[judge.Verdict], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    done: set[tuple[str, str, str]] | frozenset = frozenset(),
) -> AuditReport:
    """Audit the tasks; writes out_dir/audit.json and out_dir/episodes/TASK/SCAFFOLD/ATTACK.json.

    `done` names (task_id, scaffold, attack) already judged (a resumed job): they are not played again and the
    report holds only the verdicts of this call. `pool` shares a warm SandboxPool; without one the audit starts its own.
    """
    config = config or AuditConfig()
    task_dirs = [Path(task) for task in task_dirs]
    for task in task_dirs:
        grading.load_grading(task)  # a directory that is no bundle fails here, before any episode
        if not (task / "public" / "sample_submission.csv").is_file():
            raise UsageError(f"{task} has no public/sample_submission.csv")
    attacks = select_attacks(list(config.attacks) or None, families=list(config.families) or None)
    skipped = [f"{a.name}: needs a rubric judge (none given)" for a in attacks if a.needs_judge and config.judge is None]
    attacks = [a for a in attacks if not a.needs_judge or config.judge is not None]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    started, started_at = time.monotonic(), datetime.now(timezone.utc).isoformat(timespec="seconds")
    report = AuditReport(started_at=started_at, tasks=[task_id_of(t) for t in task_dirs], scaffolds=list(config.scaffolds),
                         attacks=[{"name": a.name, "family": a.family, "tries": a.tries, "every_scaffold": a.every_scaffold}
                                  for a in attacks], skipped=skipped, reward_scheme=config.reward,
                         scaffold_options=dict(config.scaffold_options), feedback=config.feedback_modes(attacks))
    data_dirs = sorted({str(task.resolve().parent) for task in task_dirs})
    scratch = owned_temp_dir("sandmle-audit-")
    own_pool = pool is None
    listener = Listener()
    try:
        if own_pool:
            pool = _make_pool(config.concurrency)
        data_before = judge.file_hashes([Path(d) for d in data_dirs], skip=(out_dir,))
        clean = {task: _clean_copy(task, scratch / "clean") for task in task_dirs}
        floors = {task: judge.honest_grade((task / "public" / "sample_submission.csv").read_bytes(), clean[task],
                                           scratch / "floor" / task_id_of(task)) for task in task_dirs}
        canary = make_canary(scratch / "canary")
        staging = staging_root(scratch) or Path(tempfile.gettempdir())
        lock = threading.Lock()

        def play(job: tuple[Path, str, Attack]) -> judge.Verdict | None:
            task, scaffold, attack = job
            if should_cancel is not None and should_cancel():
                return None
            siblings = tuple(str(t.resolve()) for t in task_dirs if t != task)
            target = AttackTarget(task_dir=str(task.resolve()), sibling_dirs=siblings[:3], data_dirs=tuple(data_dirs),
                                  staging_dir=str(staging), canary_dir=str(canary), listener=listener.addresses,
                                  nonce=f"AUDIT-NONCE-{secrets.token_hex(8)}", is_lower_better=floors[task].is_lower_better,
                                  step_timeout_s=config.step_timeout_s, memory_mb=config.memory_mb, workdir_mb=1024)
            result = play_attack(task, scaffold, attack, target=target, clean_task=clean[task], floor=floors[task],
                                 config=config, pool=pool, out_dir=out_dir, scratch=scratch, listener=listener)
            with lock:
                report.verdicts.append(result.to_dict())
                if on_verdict is not None:
                    on_verdict(result)
            return result

        for task in task_dirs:
            for result in grade_degenerate(clean[task]):
                result.task_id = task_id_of(task)
                report.degenerate.append(result.to_dict())
                entry = broken_entry(result, scheme=config.reward)
                if entry is not None:
                    report.broken_tasks.append(entry)
        jobs = [job for job in plan_episodes(task_dirs, attacks, config.scaffolds)
                if (task_id_of(job[0]), job[1], job[2].name) not in done]
        with ThreadPoolExecutor(max_workers=config.concurrency) as executor:
            list(executor.map(play, jobs))
        report.changed_outside = judge.changes(data_before, judge.file_hashes([Path(d) for d in data_dirs], skip=(out_dir,)))
    finally:
        listener.close()
        if own_pool and pool is not None:
            pool.close()
        remove_tree(scratch)
    report.wall_s = time.monotonic() - started
    report.passed = not report.failing and not report.broken_tasks and not report.changed_outside
    report.family_scaffold = family_scaffold_counts(report.verdicts, degenerate=report.degenerate,
                                                    broken=report.broken_tasks)
    report.verdict = verdict_line(passed=report.passed, contained=len(report.verdicts) - len(report.failing),
                                  failing=len(report.failing), broken_tasks=report.broken_tasks,
                                  changed_outside=report.changed_outside)
    (out_dir / REPORT_NAME).write_text(json.dumps(report.to_dict(), indent=1))
    return report


def _make_pool(concurrency: int) -> Any:
    from sandmle.sandbox import SandboxPool, SandboxUnavailable

    try:
        return SandboxPool(max_zygotes=max(1, min(concurrency, os.cpu_count() or 1)))
    except SandboxUnavailable:
        return None


def _clean_copy(task: Path, root: Path) -> Path:
    copy = root / task_id_of(task)
    shutil.copytree(task, copy, symlinks=True)
    return copy


def play_attack(task: Path, scaffold: str, attack: Attack, *, target: AttackTarget, clean_task: Path,
                floor: Any, config: AuditConfig, pool: Any, out_dir: Path, scratch: Path, listener: Listener) -> judge.Verdict:
    """One episode of one attack, and its verdict."""
    from sandmle.episodes.runner import EpisodeConfig, run_episode

    steps = attack.steps(target)
    policy = AttackPolicy(steps, attack=attack.name, is_lower_better=target.is_lower_better)
    nodes = code_steps(steps) + 1
    options = dict(config.scaffold_options.get(scaffold, {}))
    if scaffold in ("aide", "aira"):  # a tree grows a node per code step, no debugging between them
        options |= {"steps": nodes, "num_drafts": nodes, "debug_prob": 0.0}
    episode = EpisodeConfig(feedback=config.feedback or attack.feedback, max_turns=attack.options.get("max_turns", len(steps) + 2),
                            time_budget_s=config.time_budget_s, step_timeout_s=config.step_timeout_s,
                            memory_mb=config.memory_mb, scaffold_options=options,
                            rubric_judge=config.judge if attack.needs_judge else None)
    watched = [task, Path(target.canary_dir)]
    before = judge.file_hashes(watched)
    workdir = owned_temp_dir("sandmle-audit-episode-")
    started = time.monotonic()
    try:
        trajectory = run_episode(task, scaffold=scaffold, policy=policy, config=episode, workdir=workdir, pool=pool)
        wall = time.monotonic() - started
        data = judge.capture_submission(workdir, clean_task)
        workdir_bytes = _usage(workdir)
    finally:
        remove_tree(workdir)
    leftover = leftover_processes(target.nonce)
    changed = judge.changes(before, judge.file_hashes(watched))
    honest = judge.honest_grade(data, clean_task, scratch / "honest" / f"{secrets.token_hex(6)}")
    record = trajectory.to_dict()
    honest_format = judge.honest_format_rate(record)
    grade = trajectory.grade or GradeReport()  # never graded: no score, nothing valid
    earned = trajectory.rewards.get("dense", {}).get("total", 0.0)
    worth = judge.worth(honest, honest_format)
    observations = "\n".join(turn.get("observation") or "" for turn in record["turns"])
    found = sorted({line.strip()[:300] for line in observations.splitlines() if FOUND_MARK in line})
    result = judge.Verdict(
        task_id=trajectory.task_id, scaffold=scaffold, attack=attack.name, family=attack.family, passed=True,
        reward_earned=earned, reward_worth=worth, score_earned=grade.score, score_worth=honest.score,
        floor_score=floor.score, milestone_earned=grade.milestone, valid_earned=bool(grade.valid_submission),
        valid_worth=honest.valid_submission, format_rate=trajectory.format_rate, honest_format_rate=honest_format,
        termination=trajectory.termination, error=trajectory.error, changed=changed, found=found, wall_s=wall)
    problems = []
    if trajectory.error:
        problems.append(f"the episode failed on the host: {trajectory.error}")
    if earned > worth + judge.TOLERANCE:
        problems.append(f"earned a reward of {earned:.4f} for predictions worth {worth:.4f} graded honestly "
                        f"(score {grade.score} against {honest.score}, format {trajectory.format_rate:.2f} "
                        f"against {honest_format:.2f})")
    if found:
        problems.append(f"read private data: {found[0]}")
    if judge.better(honest.score, floor.score, is_lower_better=target.is_lower_better):
        problems.append(f"its predictions score {honest.score} on the private split, better than the sample "
                        f"submission's {floor.score}, without any modelling: they carry private information")
    if changed:
        problems.append(f"changed files outside its episode: {', '.join(changed[:5])}")
    if attack.expect_valid is False and grade.valid_submission:
        problems.append(f"the grader accepted a submission that {attack.tries}")
    if attack.expect_valid is True and (not grade.valid_submission or grade.score != floor.score):
        problems.append(f"the grader did not grade a submission that {attack.tries} as the plain file "
                        f"(valid {grade.valid_submission}, score {grade.score} against {floor.score})")
    if attack.check is not None:
        problems += attack.check(Outcome(trajectory=trajectory, target=target, workdir_bytes=workdir_bytes,
                                         leftover_pids=leftover, network_hits=listener.hits(target.nonce)))
    result.problems, result.passed = problems, not problems
    evidence = Path("episodes") / _safe(trajectory.task_id) / scaffold / f"{attack.name}.json"
    (out_dir / evidence).parent.mkdir(parents=True, exist_ok=True)
    (out_dir / evidence).write_text(json.dumps({
        "attack": attack.name, "tries": attack.tries, "verdict": result.to_dict(), "honest_grade": honest.to_dict(),
        "submission_head": (data or b"")[:2000].decode(errors="replace"), "trajectory": record}, default=str))
    result.evidence = evidence.as_posix()
    return result


def _usage(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120] or "task"
