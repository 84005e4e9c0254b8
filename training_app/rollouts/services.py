"""Writes of the training side: rollout batches (create, execute on a worker, cancel) and their trajectories."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from sandmle.evaluation.metrics import episode_turns
from sandmle.tasks.grade_report import GradeReport, stored_grade
from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.job_loop import run_job
from sandmle_web.jobs import JobState
from sandmle_web.llm_hosts import openai_policy_refusal
from sandmle_web.queues import Queue
from tasks_app.models import SynthesizedTask, TaskSet
from training_app.models import RolloutBatch, Trajectory
from training_app.shared.budget_inputs import checked_budgets
from training_app.shared.checkpoints import checkpoint_problem
from training_app.shared.model_roots import allowed_policy

POLICY_PREFIXES = ("baseline", "openai:", "hf:")


def _check_policy(policy: str, *, user=None) -> str:
    """The policy as it will run (an `hf:` path made real, inside the model roots), or a ServiceError."""
    if policy == "baseline":
        return policy
    if policy.startswith("openai:"):
        refusal = openai_policy_refusal(policy)
        if refusal:
            raise ServiceError(refusal, field="policy")
        return policy
    if policy.startswith("hf:") and len(policy) > 3:
        if user is None:
            return policy
        checked = allowed_policy(policy, user=user)
        problem = checkpoint_problem(checked)
        if problem:
            raise ServiceError(problem, field="policy")
        return checked
    raise ServiceError("expected baseline, openai:MODEL@URL or hf:PATH", field="policy")


@transaction.atomic
def rollout_batch_create(
    *, task_set: TaskSet, scaffold: str, policy: str, samples: int = 1, concurrency: int = 2,
    feedback: str = "score", scaffold_options: dict | None = None, schedule: dict | None = None,
    name: str = "", user=None, **budgets,
) -> RolloutBatch:
    """A batch = task set x scaffold x policy x G samples; `hf:` policies run next to the model on a GPU worker.

    budgets: an episode's budgets by their keys (sandmle/episodes/budget.py), stored checked with every key filled in.

    scaffold_options: the scaffold's {option: value} or {"preset": ...}, checked by the engine with the key named.
    schedule: the sampling schedule's keys (sandmle/agents/policies/schedule.py), stored checked ({} when constant).
    """
    if scaffold not in RolloutBatch.Scaffold.values:
        raise ServiceError(f"expected one of {', '.join(RolloutBatch.Scaffold.values)}", field="scaffold")
    if feedback not in RolloutBatch.Feedback.values:
        raise ServiceError(f"expected one of {', '.join(RolloutBatch.Feedback.values)}", field="feedback")
    policy = _check_policy(policy, user=user)
    if not 1 <= samples <= 64:
        raise ServiceError("samples per task must be between 1 and 64", field="samples")
    if not 1 <= concurrency <= 32:
        raise ServiceError("concurrency must be between 1 and 32", field="concurrency")
    budgets = checked_budgets(budgets)
    from sandmle.agents.scaffolds.options import check_scaffold_options
    from sandmle.errors import UsageError

    try:
        scaffold_options = check_scaffold_options(scaffold, scaffold_options or {})
    except UsageError as error:
        raise ServiceError(str(error), field="scaffold_options") from None
    from sandmle.agents.policies.schedule import checked_schedule
    from sandmle.settings import ConfigError

    try:
        schedule = checked_schedule(schedule or {})
    except ConfigError as error:
        raise ServiceError(str(error).partition(": ")[2], field=error.key) from None
    if not task_set.tasks.exists():
        raise ServiceError("the task set has no tasks", field="task_set")
    queue = Queue.GPU if policy.startswith("hf:") else Queue.SANDBOX
    batch = RolloutBatch.objects.create(
        name=name, task_set=task_set, scaffold=scaffold, policy=policy, samples=samples, concurrency=concurrency,
        feedback=feedback, budgets=budgets, scaffold_options=scaffold_options, schedule=schedule,
        queue=queue.value, created_by=user,
    )
    enqueue("workers.rollouts.run_rollout_batch", args=(batch.id,), queue=queue)
    return batch


def trajectory_store(*, batch: RolloutBatch, task: SynthesizedTask, record: dict) -> Trajectory | None:
    """Store one finished episode; a redelivered batch that re-runs a sample keeps the first record."""
    grade = stored_grade(record.get("grade")) or GradeReport()  # never graded: invalid, no milestone, no score
    rewards = record.get("rewards") or {}
    try:
        return Trajectory.objects.create(
            batch=batch, task=task, sample_index=int(record.get("sample_index", 0)),
            termination=str(record.get("termination", "")),
            valid_submission=bool(grade.valid_submission), milestone=grade.milestone or "",
            score=grade.score, reward=float((rewards.get("dense") or {}).get("total", 0.0)),
            format_rate=float(record.get("format_rate", 0.0)), n_turns=episode_turns(record),
            n_records=len(record.get("turns", [])),
            wall_s=float(record.get("wall_s", 0.0)), record=record,
        )
    except IntegrityError:
        return None


def rollout_batch_execute(*, batch_id: int, worker: str = "") -> bool:
    """Claim a queued batch and run its episodes, storing each trajectory as it finishes.

    Episodes run on the engine's threads; every database write happens here, in the job's own thread, so
    SQLite sees one writer and a test's transaction sees the rows.
    """
    from sandmle.agents.policies.base import SamplingParams
    from sandmle.agents.policies.schedule import sampling_schedule
    from sandmle.episodes.budget import episode_budget_kwargs
    from sandmle.episodes.failures import EpisodeFailures
    from sandmle.episodes.runner import EpisodeConfig, run_batch, summarize
    from sandmle.episodes.trajectory import Trajectory as EngineTrajectory
    from sandmle.generation import GenerationStats

    if not RolloutBatch.claim(batch_id, worker=worker):
        return False
    batch = RolloutBatch.objects.select_related("task_set").get(id=batch_id)
    tasks = {task.task_id: task for task in batch.task_set.tasks.all()}
    total = len(tasks) * batch.samples
    # A batch taken up again after its worker died runs only the episodes it has no trajectory for yet.
    finished_before = {(task_id, sample) for task_id, sample in
                       Trajectory.objects.filter(batch=batch).values_list("task__task_id", "sample_index")}
    if batch.created_by_id and batch.policy.startswith("hf:"):
        # In the job's thread (the database is this thread's): may the creator still load this checkpoint?
        try:
            _check_policy(batch.policy, user=batch.created_by)
        except ServiceError as error:
            RolloutBatch.finish(batch.id, state=JobState.FAILED, error=f"policy: {error}")
            return True
    stats = GenerationStats()  # this attempt's generation (a resumed batch's earlier attempts are not counted)

    def episodes(put, should_stop):
        _check_policy(batch.policy)  # again in the worker: the allow-list may have changed since the batch was made
        episode_budgets, sampling_budgets = episode_budget_kwargs(batch.episode_budgets())
        config = EpisodeConfig(feedback=batch.feedback, **episode_budgets,
                               scaffold_options=dict(batch.scaffold_options or {}),
                               sampling=SamplingParams(**sampling_budgets, **sampling_schedule(batch.schedule or {})))
        # An OpenAI-compatible endpoint gets the key of the variable the deployment names, never one from input.
        options = {"api_key_env": settings.SANDMLE_LLM_KEY_ENV} if batch.policy.startswith("openai:") else {}
        return run_batch(
            sorted(Path(task.bundle_dir) for task in tasks.values()), scaffold=batch.scaffold,
            policy_spec=batch.policy, samples=batch.samples, concurrency=batch.concurrency, config=config,
            on_trajectory=put, should_cancel=should_stop, policy_options=options,
            skip=finished_before, stats=stats,
        )

    stored = len(finished_before)

    def store(trajectory):
        nonlocal stored
        trajectory_store(batch=batch, task=tasks[trajectory.task_id], record=trajectory.to_dict())
        stored += 1
        return stored / max(total, 1), f"{stored} of {total} episodes stored"

    # No beat while idle: a batch's progress beats come with its episodes (the heartbeat thread keeps it alive).
    run = run_job(RolloutBatch, batch.id, engine=episodes, store=store, beat_when_idle=False)
    if run.error is not None:
        run.fail()
    # The summary covers every stored episode, those of earlier attempts included.
    rows = Trajectory.objects.filter(batch=batch).only("record")
    everything = [EngineTrajectory.from_dict(row.record) for row in rows]
    summary = summarize(everything, stats=stats)
    RolloutBatch.objects.filter(id=batch.id).update(summary=summary)
    failures = EpisodeFailures.from_dict(summary["failures"])
    if run.cancelled:
        RolloutBatch.finish(batch.id, state=JobState.CANCELLED)
    elif failures.every_episode_failed:  # not "succeeded" with a medal rate of 0: the page says why
        RolloutBatch.finish(batch.id, state=JobState.FAILED, error=failures.job_error())
    else:
        RolloutBatch.finish(batch.id, state=JobState.SUCCEEDED)
    return True
