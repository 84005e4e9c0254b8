"""Writes of evaluation campaigns: create (validated by the engine's CampaignSpec), execute on a worker, store episodes."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from sandmle.episodes.budget import BUDGET_KEYS
from sandmle.errors import UsageError
from sandmle.evaluation.metrics import episode_turns
from sandmle.tasks.grade_report import GradeReport, stored_grade
from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.job_loop import run_job
from sandmle_web.jobs import JobState
from sandmle_web.llm_hosts import openai_policy_refusal
from sandmle_web.queues import Queue
from tasks_app.models import TaskSet
from training_app.models import CampaignEpisode, EvalCampaign
from training_app.shared.budget_inputs import checked_budgets
from training_app.shared.model_roots import allowed_policy

# The spec fields a caller sets; the task paths always come from the task set.
SPEC_FIELDS = ("policies", "scaffolds", "seeds", "baseline", "feedback", *BUDGET_KEYS, "scaffold_options", "schedule")


def _endpoints_refusal(values: dict) -> ServiceError | None:
    """The first `openai:` policy (or baseline) whose endpoint the admin does not allow, as a refusal naming its
    field; None when every one may be sent the deployment's key."""
    named = [("policies", policy) for policy in values.get("policies") or []] + [("baseline", values.get("baseline"))]
    for field, policy in named:
        if isinstance(policy, str) and policy.startswith("openai:"):
            refusal = openai_policy_refusal(policy)
            if refusal:
                return ServiceError(f"{policy}: {refusal}", field=field)
    return None


def _spec(campaign_spec: dict, task_set: TaskSet):
    from sandmle.evaluation.campaign import CampaignSpec

    tasks = sorted(Path(task.bundle_dir) for task in task_set.tasks.all())
    return CampaignSpec(tasks=tasks, **{key: campaign_spec[key] for key in SPEC_FIELDS if key in campaign_spec})


@transaction.atomic
def campaign_create(*, task_set: TaskSet, policies: list[str], scaffolds: list[str], seeds: int = 3,
                    baseline: str | None = None, feedback: str = "score", scaffold_options: dict | None = None,
                    schedule: dict | None = None, name: str = "", user=None, **budgets) -> EvalCampaign:
    """Validate with the engine's own checks (its UsageError names the field) and queue the campaign.

    budgets: an episode's budgets by their keys (sandmle/episodes/budget.py), the engine's defaults for the rest.
    scaffold_options: {scaffold: {option: value}}, each column's preset and options, stored checked in the spec.
    schedule: the sampling schedule's keys, stored as the engine checked them ({} when constant).
    """
    from sandmle.agents.policies.schedule import SCHEDULE_KEYS

    if not task_set.tasks.exists():
        raise ServiceError("the task set has no tasks", field="task_set")
    if user is not None:  # local checkpoints only from the model roots, and only those the user may use
        resolved = {policy: allowed_policy(policy, user=user, field="policies") for policy in policies}
        policies, baseline = [resolved[policy] for policy in policies], resolved.get(baseline, baseline)
    values = {"policies": list(policies), "scaffolds": list(scaffolds), "seeds": seeds, "baseline": baseline or None,
              "feedback": feedback, **checked_budgets(budgets), "scaffold_options": dict(scaffold_options or {}),
              "schedule": dict(schedule or {})}
    refused = _endpoints_refusal(values)
    if refused is not None:
        raise refused
    try:
        spec = _spec(values, task_set)
        spec.validate()
        values["scaffold_options"] = spec.scaffold_options  # typed by the engine (a form sends text)
        values["schedule"] = spec.schedule  # every key filled in, so the page shows what ran
    except UsageError as error:
        field, _, problem = str(error).partition(": ")
        known = field in SPEC_FIELDS + SCHEDULE_KEYS
        raise ServiceError(problem or str(error), field=field if known else "non_field_errors")
    # A local checkpoint is evaluated next to the model, on a GPU worker; served models and the baseline on CPU.
    target = Queue.GPU if any(policy.startswith("hf:") for policy in values["policies"]) else Queue.SANDBOX
    campaign = EvalCampaign.objects.create(name=name, task_set=task_set, spec=values, queue=target.value,
                                           created_by=user)
    # A random suffix: SQLite may hand a deleted row's id out again, and a campaign must never resume another's files.
    campaign.out_dir = str(Path(settings.DATA_DIR) / "campaigns" / f"{campaign.id}-{uuid.uuid4().hex[:12]}")
    campaign.save(update_fields=["out_dir"])
    enqueue("workers.evaluation.run_campaign", args=(campaign.id,), queue=target)
    return campaign


def episode_store(*, campaign: EvalCampaign, record: dict) -> CampaignEpisode | None:
    """Store one finished episode; one already stored under its key (a resumed run's replay) is kept."""
    report = stored_grade(record.get("report")) or GradeReport()  # never graded: invalid, no milestone, no score
    try:
        with transaction.atomic():  # a savepoint: a duplicate key must not spoil the caller's transaction
            return CampaignEpisode.objects.create(
                campaign=campaign, key=record["key"], policy=record["policy"], scaffold=record["scaffold"],
                task_id=record["task_id"], seed=int(record["seed"]), milestone=report.milestone or "",
                valid_submission=bool(report.valid_submission), score=report.score,
                n_turns=episode_turns(record.get("trajectory") or {}), record=record,
            )
    except IntegrityError:
        return None


def campaign_requeue(*, campaign_id: int) -> bool:
    """Put a failed (say, worker lost) campaign back in the queue; its finished episodes are never rerun."""
    requeued = EvalCampaign.objects.filter(id=campaign_id, state=JobState.FAILED).update(
        state=JobState.QUEUED, error="", finished_at=None, cancel_requested=False)
    if requeued:
        campaign = EvalCampaign.objects.get(id=campaign_id)
        enqueue("workers.evaluation.run_campaign", args=(campaign.id,), queue=campaign.queue)
    return requeued == 1


def campaign_execute(*, campaign_id: int, worker: str = "") -> bool:
    """Claim a queued campaign and run the episodes it still lacks, storing each as it ends.

    The engine resumes from out_dir/episodes.jsonl; the rows are written here, in the job's own thread, so SQLite
    sees one writer. The engine's threads only put records on a queue.
    """
    from sandmle.episodes.failures import EpisodeFailures
    from sandmle.evaluation.campaign import read_episodes, run_campaign

    if not EvalCampaign.claim(campaign_id, worker=worker):
        return False
    campaign = EvalCampaign.objects.select_related("task_set").get(id=campaign_id)
    # Again here, before any episode: the admin may have taken a host off the list since the campaign was made.
    refused = _endpoints_refusal(campaign.spec or {})
    if refused is not None:
        EvalCampaign.finish(campaign.id, state=JobState.FAILED, error=f"{refused.field}: {refused}")
        return True
    total = max(campaign.total_episodes, 1)
    spec = _spec(campaign.spec, campaign.task_set)  # read here: the engine's threads never touch the database
    # An OpenAI-compatible endpoint gets the key of the variable the deployment names, never one from input.
    options = {"api_key_env": settings.SANDMLE_LLM_KEY_ENV} \
        if any(policy.startswith("openai:") for policy in spec.policies) else {}

    def store(record: dict):
        episode_store(campaign=campaign, record=record)
        stored = campaign.episodes.count()
        return stored / total, f"{stored} of {total} episodes stored"

    run = run_job(EvalCampaign, campaign.id, store=store, engine=lambda put, should_stop: run_campaign(
        spec, Path(campaign.out_dir), on_episode=put, should_stop=should_stop, policy_options=options))
    # Episodes the file holds but the rows lack (a worker killed between the two writes) are stored now.
    stored_keys = set(campaign.episodes.values_list("key", flat=True))
    for record in read_episodes(Path(campaign.out_dir)):
        if record["key"] not in stored_keys:
            episode_store(campaign=campaign, record=record)
    if run.error is not None:
        run.fail()
    report = run.result
    EvalCampaign.objects.filter(id=campaign.id).update(report=report)
    failures = EpisodeFailures.from_dict(report.get("failures") or {})
    if not report.get("complete", False) or run.cancelled:
        EvalCampaign.finish(campaign.id, state=JobState.CANCELLED)
    elif failures.every_episode_failed:  # not "succeeded" with medal rates of 0: the page says why
        EvalCampaign.finish(campaign.id, state=JobState.FAILED, error=failures.job_error())
    else:
        EvalCampaign.finish(campaign.id, state=JobState.SUCCEEDED)
    return True
