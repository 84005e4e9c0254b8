"""Writes of task-set audits: create (validated against the engine's registry), execute on a worker (resumable),
store verdicts and degenerate scores; and the gate a training launch passes."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from sandmle.audit.coverage import RUBRIC_REWARDS, PlaySettings, bundle_digest, coverage_record, judge_identity
from sandmle.audit.summary import verdict_line
from sandmle.errors import UsageError
from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.job_loop import run_job
from sandmle_web.jobs import JobState
from sandmle_web.queues import Queue
from tasks_app.models import TaskSet
from training_app.audits import selectors
from training_app.audits.models import AuditVerdict, DegenerateScore, TaskSetAudit


def _task_dirs(task_set: TaskSet) -> list[Path]:
    return sorted(Path(task.bundle_dir) for task in task_set.tasks.all())


def _config(audit: TaskSetAudit):
    from sandmle.audit import AuditConfig

    return AuditConfig(scaffolds=tuple(audit.scaffolds), attacks=tuple(audit.attacks), reward=audit.reward_scheme,
                       scaffold_options=dict(audit.scaffold_options or {}), feedback=audit.feedback or None)


def _refused_field(message: str) -> str:
    """The input an engine UsageError names (its messages say "scaffold option", "feedback", "attack", ...)."""
    if "judges degenerate" in message:
        return "reward_scheme"
    if "scaffold option" in message:
        return "scaffold_options"
    if message.startswith("feedback"):
        return "feedback"
    return "attacks" if "attack" in message else "scaffolds"


def _chosen_attacks(config) -> list:
    from sandmle.audit import select_attacks

    return [a for a in select_attacks(list(config.attacks) or None) if not a.needs_judge]


@transaction.atomic
def audit_create(*, task_set: TaskSet, scaffolds: list[str], attacks: list[str] | None = None,
                 reward_scheme: str = "dense", scaffold_options: dict[str, dict] | None = None, feedback: str = "",
                 user=None) -> TaskSetAudit:
    """Check the scaffolds, their options ({scaffold: options}: react's dialect), the feedback mode (every mode a
    run may play, score_answers included: "" plays each attack's own), the attacks and the reward scheme with the
    engine's own rules (its UsageError names the problem), then queue."""
    from sandmle.audit import AuditConfig
    from sandmle.audit.runner import plan_episodes

    if not task_set.tasks.exists():
        raise ServiceError("the task set has no tasks", field="task_set")
    try:
        config = AuditConfig(scaffolds=tuple(scaffolds), attacks=tuple(attacks or ()), reward=reward_scheme,
                             scaffold_options=dict(scaffold_options or {}), feedback=feedback or None)
        chosen = _chosen_attacks(config)
    except UsageError as error:
        raise ServiceError(str(error), field=_refused_field(str(error))) from None
    if not chosen:
        raise ServiceError("every attack named needs a rubric judge, which studio audits do not use", field="attacks")
    audit = TaskSetAudit.objects.create(task_set=task_set, scaffolds=list(config.scaffolds),
                                        scaffold_options=config.scaffold_options, feedback=config.feedback or "",
                                        attacks=list(attacks or []), reward_scheme=config.reward, created_by=user,
                                        queue=Queue.SANDBOX.value,
                                        planned=len(plan_episodes(_task_dirs(task_set), chosen, config.scaffolds)))
    # A random suffix: SQLite may hand a deleted row's id out again, and an audit must never resume another's files.
    audit.out_dir = str(Path(settings.DATA_DIR) / "audits" / f"{audit.id}-{uuid.uuid4().hex[:12]}")
    audit.save(update_fields=["out_dir"])
    enqueue("workers.audits.run_task_set_audit", args=(audit.id,), queue=Queue.SANDBOX)
    return audit


def verdict_store(*, audit: TaskSetAudit, verdict: dict) -> AuditVerdict | None:
    """Store one verdict; one already stored for its case (a resumed run's replay) is kept."""
    try:
        with transaction.atomic():  # a savepoint: a duplicate case must not spoil the caller's transaction
            return AuditVerdict.objects.create(
                audit=audit, task_id=verdict["task_id"], scaffold=verdict["scaffold"], attack=verdict["attack"],
                family=verdict["family"], passed=bool(verdict["passed"]), reward_earned=verdict["reward_earned"],
                reward_worth=verdict["reward_worth"], problems=verdict["problems"], evidence=verdict["evidence"],
                record=verdict)
    except IntegrityError:
        return None


def audit_execute(*, audit_id: int, worker: str = "") -> bool:
    """Claim a queued audit and play the cases it still lacks, storing each verdict as it comes.

    The engine's threads only put verdicts on a queue; the rows are written here, in the job's own thread.
    """
    from sandmle.audit import run_audit

    if not TaskSetAudit.claim(audit_id, worker=worker):
        return False
    audit = TaskSetAudit.objects.select_related("task_set").get(id=audit_id)
    tasks = {task.task_id: Path(task.bundle_dir) for task in audit.task_set.tasks.all()}
    task_dirs = sorted(tasks.values())  # read here: the engine's threads never touch the database
    config = _config(audit)
    # What this audit vouches for, taken before it plays: the tasks and their bytes as they are now.
    # Studio audits run no rubric judge (judge None): a rubric run's gate names that gap.
    chosen = _chosen_attacks(config)
    TaskSetAudit.objects.filter(id=audit.id).update(coverage=coverage_record(
        attacks=[attack.name for attack in chosen], scaffolds=list(config.scaffolds),
        scaffold_options=config.scaffold_options, feedback=config.feedback_modes(chosen), judge=None,
        task_sets=[audit.task_set.name], tasks={task_id: bundle_digest(path) for task_id, path in tasks.items()},
        reward=config.reward))
    done = set(audit.verdicts.values_list("task_id", "scaffold", "attack"))
    total = max(audit.planned, 1)

    def play(put, should_stop):
        return run_audit(task_dirs, out_dir=Path(audit.out_dir), config=config, done=done,
                         on_verdict=lambda verdict: put(verdict.to_dict()), should_cancel=should_stop)

    def store(verdict: dict):
        verdict_store(audit=audit, verdict=verdict)
        stored = audit.verdicts.count()
        return stored / total, f"{stored} of {total} episodes stored"

    run = run_job(TaskSetAudit, audit.id, engine=play, store=store)
    if run.error is not None:
        run.fail()
    report = run.result
    for score in report.degenerate:
        DegenerateScore.objects.update_or_create(
            audit=audit, task_id=score["task_id"], solution=score["solution"],
            defaults={"score": score["score"], "milestone": score["milestone"] or "", "valid": score["valid"],
                      "medal": score["medal"]})
    complete = audit.verdicts.count() >= audit.planned and not run.cancelled
    failing = audit.verdicts.filter(passed=False).count()
    contained = audit.verdicts.filter(passed=True).count()
    summary = {"episodes": audit.verdicts.count(), "contained": contained,
               "failing": failing, "broken_tasks": report.broken_tasks, "changed_outside": report.changed_outside,
               "skipped": report.skipped, "attacks": len(report.attacks), "reward_scheme": report.reward_scheme}
    passed = complete and not failing and not report.broken_tasks and not report.changed_outside
    if complete:
        summary["verdict"] = verdict_line(passed=passed, contained=contained, failing=failing,
                                          broken_tasks=report.broken_tasks, changed_outside=report.changed_outside)
    TaskSetAudit.objects.filter(id=audit.id).update(summary=summary, passed=passed if complete else None)
    TaskSetAudit.finish(audit.id, state=JobState.SUCCEEDED if complete else JobState.CANCELLED)
    return True


def run_play_settings(*, config) -> PlaySettings:
    """How a run (its engine TrainConfig) plays its episodes: the settings an audit must have played to vouch for it.

    An SFT run plays no episodes: its conversations come from one scaffold in one dialect (the dataset is filtered to
    the run's), so its scaffold and options are compared and no feedback mode."""
    reward = getattr(config, "reward", "dense")
    judge = judge_identity(getattr(config, "judge_url", None), getattr(config, "judge_model", None))
    return PlaySettings(scaffold=getattr(config, "scaffold", "react"),
                        scaffold_options=dict(getattr(config, "scaffold_options", None) or {}),
                        feedback=getattr(config, "feedback", "score") if config.kind == "grpo" else None,
                        reward=reward, judge=judge if reward in RUBRIC_REWARDS else None)


def training_audit_gate(*, task_set: TaskSet, config, eval_task_set: TaskSet | None = None) -> str:
    """The warning a GRPO or SFT launch on this set carries ("" when its newest audit passed and covered every
    attack, the way the run plays: scaffold, its options, feedback, reward and judge; and exactly the set's tasks at
    their current content; and the same of the evaluation set); with SANDMLE_REQUIRE_AUDIT set, a launch that would
    warn is refused instead (ServiceError on task_set)."""
    play = run_play_settings(config=config)
    warnings = [selectors.audit_warning(task_set=task_set, play=play)]
    if eval_task_set is not None and eval_task_set.id != task_set.id:
        # Evaluation episodes play the run's checkpoints on these tasks with the same settings: the same holes.
        warnings.append(selectors.audit_warning(task_set=eval_task_set, play=play, role="evaluation "))
    # environments adaptive: successors are new tasks, but each is audited on the run's scaffold, scaffold options
    # and feedback before it enters the draw (sandmle/rl/successor_jobs.py; adaptive_review audit and hold both
    # audit), and a failing one is dropped: no gap. rollout_mode async: the same episodes (the run's own collect
    # function, scaffold, sandbox and grader) sampled with weights up to max_staleness steps older; what an episode
    # can do does not change, so no gap either.
    warning = "; ".join(line for line in warnings if line)
    if warning and settings.SANDMLE_REQUIRE_AUDIT:
        raise ServiceError(f"{warning}; SANDMLE_REQUIRE_AUDIT refuses training on it until a complete audit passes",
                           field="task_set")
    return warning
