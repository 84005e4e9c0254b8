"""`manage.py demo`: the main job on embedded defaults — seeds -> tasks -> review -> rollouts -> evaluation -> audit ->
GRPO that visibly learns.

Work goes through the Celery worker that `scripts/demo` starts, exactly as in the studio; this command
enqueues, waits for the job rows, and prints what happened.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun, SynthesizedTask, TaskSet
from tasks_app.review import services as review_services
from tasks_app.seeds import services as seed_services
from tasks_app.synthesis import services as synthesis_services
from tasks_app.task_sets import services as task_set_services
from training_app.audits import selectors as audit_selectors
from training_app.audits import services as audit_services
from training_app.campaigns import services as campaign_services
from training_app.models import EvalCampaign, RolloutBatch, TaskSetAudit, TrainingRun
from training_app.rollouts import services as rollout_services
from training_app.runs import services as training_services

DEMO_SEEDS = {"iris": 2, "breast_cancer": 1, "diabetes": 1, "digits": 1}
# --quick (SANDMLE_DEMO_QUICK=1, CI's run of the README's command): the same pipeline on the smallest inputs.
QUICK_SEEDS = {"iris": 1}


def failures_note(failures: dict | None) -> str:
    """'; 3 of 10 episodes failed (30%), most often (3): <reason>' for a partly failing job, else ''."""
    line = (failures or {}).get("line")
    return f"; {line}" if line else ""


def _wait(model, job_id: int, *, timeout_s: float, label: str, write) -> None:
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        job = model.objects.get(id=job_id)
        line = f"  {label}: {job.state} {job.progress:.0%} {job.progress_message}"
        if line != last:
            write(line)
            last = line
        if job.is_finished:
            if job.state != JobState.SUCCEEDED:
                raise CommandError(f"{label} ended {job.state}: {job.error}")
            return
        time.sleep(1.0)
    raise CommandError(f"{label} did not finish within {timeout_s:.0f} s: is the Celery worker running?")


# The demo's GRPO run: the cpu-smoke preset over the reply-menu tiny model, long enough for its reward to rise.
DEMO_STEPS = {"quick": 6, "full": 8}
MODEL_LINE = ("model: a 2-layer Qwen3 of hidden size 64 built here, whose only choice is which of {replies} scripted "
              "replies to send (fit a model, submit the sample, misname the file), one sampled token a reply: tiny so "
              "that GRPO visibly learns on two CPU cores in about a minute, with no download and no GPU")


def demo_model() -> Path:
    """The reply-menu tiny model under the data directory's models/ (the training form offers it too), built once."""
    from training_app.shared.model_roots import TINY_MODEL, ensure_tiny_model

    ensure_tiny_model(TINY_MODEL)
    return Path(settings.DATA_DIR) / TINY_MODEL


def demo_training_run_create(*, task_set: TaskSet, user: User, quick: bool) -> TrainingRun:
    """Queue the demo's GRPO run: cpu-smoke's recipe, one task a step (quick) or two, DEMO_STEPS steps."""
    steps = DEMO_STEPS["quick" if quick else "full"]
    return training_services.training_run_create(
        task_set=task_set, model=str(demo_model()), preset="cpu-smoke", steps=steps, save_every=steps,
        tasks_per_step=1 if quick else min(2, task_set.tasks.count()), name="demo GRPO run (reply-menu tiny model)",
        user=user, smoke=True)


def reward_rise(run: TrainingRun) -> tuple[float, float]:
    """(mean reward of the run's first two steps, of its last two): before and after, one noisy step smoothed."""
    rewards = [row.metrics.get("reward_mean", 0.0) for row in run.metrics.order_by("step")]
    if not rewards:
        return 0.0, 0.0
    return sum(rewards[:2]) / len(rewards[:2]), sum(rewards[-2:]) / len(rewards[-2:])


def demo_training_line(run: TrainingRun) -> str:
    before, after = reward_rise(run)
    return (f"training run #{run.id} (GRPO, cpu-smoke preset, reply-menu tiny model): {run.metrics.count()} steps, "
            f"mean reward {before:.2f} -> {after:.2f} (first two steps -> last two), {run.checkpoints.count()} "
            f"checkpoint(s){failures_note((run.result or {}).get('failures'))}; see /training/{run.id}/")


def demo_grpo_task_set(*, task_set: TaskSet, user: User) -> TaskSet:
    """The demo set's iris tasks (the reply menu's fitted model earns medals on them: the CLI's measured run)."""
    existing = TaskSet.objects.filter(name="demo-grpo").first()
    if existing is not None:
        return existing
    ids = list(task_set.tasks.filter(seed__name="iris").order_by("task_id").values_list("task_id", flat=True))
    return task_set_services.task_set_create(
        name="demo-grpo", task_ids=ids or list(task_set.tasks.values_list("task_id", flat=True)),
        description="The tasks the demo's GRPO run trains on.", user=user)


def demo_audit(*, task_set: TaskSet, user: User, timeout: float, write) -> TaskSetAudit:
    """Audit the set the demo trains on, as the gate asks before any training run (SANDMLE_REQUIRE_AUDIT, on by
    default): every attack that needs no judge, on the scaffold the run plays."""
    from sandmle.audit.coverage import PlaySettings

    # cpu-smoke plays react in the studio dialect with the Score tool on the public split, under the dense reward.
    covered = not audit_selectors.audit_warning(task_set=task_set, play=PlaySettings(scaffold="react"))
    audit = audit_selectors.last_audit(task_set=task_set) if covered else None
    if audit is None:  # a rerun of the demo keeps the audit that still covers its set
        audit = audit_services.audit_create(task_set=task_set, scaffolds=["react"], user=user)
        _wait(TaskSetAudit, audit.id, timeout_s=timeout, label=f"audit #{audit.id}", write=write)
        audit.refresh_from_db()
    write(f"audit #{audit.id} of task set {task_set.name} (react, {audit.summary.get('attacks', 0)} attacks): "
          f"{audit.summary.get('verdict', '')}; see /audits/{audit.id}/")
    if not audit.passed:
        raise CommandError(f"audit #{audit.id} failed, so the gate refuses training on {task_set.name}: "
                           f"{audit.summary.get('verdict', '')}")
    return audit


def demo_training_run(*, task_set: TaskSet, user: User, timeout: float, write, quick: bool) -> TrainingRun:
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU

    task_set = demo_grpo_task_set(task_set=task_set, user=user)
    run = TrainingRun.objects.filter(task_set=task_set, state=JobState.SUCCEEDED).first()
    if run is None:
        demo_audit(task_set=task_set, user=user, timeout=timeout, write=write)
    write(MODEL_LINE.format(replies=len(TABULAR_REPLY_MENU)))
    if run is None:
        run = demo_training_run_create(task_set=task_set, user=user, quick=quick)
        _wait(TrainingRun, run.id, timeout_s=timeout, label=f"training run #{run.id}", write=write)
    write(demo_training_line(run))
    return run


class Command(BaseCommand):
    help = ("Run the demo job through the worker: synthesize a first task set, run a baseline rollout batch, a small "
            "evaluation campaign and a short GRPO run in which a tiny reply-menu model learns on the CPU.")

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for each job")
        parser.add_argument("--quick", action="store_true",
                            help="the same jobs on the smallest inputs: one seed's task, one sample, campaign episodes of "
                                 "at most 3 turns, a shorter GRPO run on one task")

    def handle(self, *args, username, timeout, quick, **options):
        from sandmle.sandbox import SandboxUnavailable
        from sandmle.sandbox.self_test import sandbox_self_test

        write = self.stdout.write
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}: run `manage.py createadmin --username {username}` first")
        # Every episode runs agent code in the sandbox: without one each would fail alike and the demo would report
        # medal rates of 0 for a reason only the worker log names.
        try:
            probe = sandbox_self_test()
        except SandboxUnavailable as error:
            raise CommandError(f"the sandbox cannot run agent code here: {error}") from None
        write(f"sandbox: a step ran in {probe['wall_s'] * 1000:.0f} ms"
              + ("" if probe["isolated"] else " (NOT isolated: plain subprocess mode)"))
        created = seed_services.seeds_load_bundled()
        write(f"seeds: {Seed.objects.count()} stored ({len(created)} new)")

        if not TaskSet.objects.filter(name="demo").exists():
            for seed_name, count in (QUICK_SEEDS if quick else DEMO_SEEDS).items():
                run = synthesis_services.synthesis_run_create(seed=Seed.objects.get(name=seed_name), count=count, rng=7,
                                                              user=user)
                _wait(SynthesisRun, run.id, timeout_s=timeout, label=f"synthesis run #{run.id} ({seed_name})", write=write)
            pending = SynthesizedTask.objects.filter(status=SynthesizedTask.Status.PENDING_REVIEW)
            for task in pending:
                review_services.task_approve(task=task, user=user, comment="Approved by the demo script.")
            approved = list(SynthesizedTask.objects.filter(status=SynthesizedTask.Status.APPROVED).values_list("task_id", flat=True))
            rejected = SynthesizedTask.objects.filter(status=SynthesizedTask.Status.REJECTED).count()
            write(f"tasks: {len(approved)} validated and approved, {rejected} rejected by the critic")
            task_set_services.task_set_create(name="demo", task_ids=approved, description="The demo's first task set.",
                                              user=user)
        task_set = TaskSet.objects.get(name="demo")

        batch = RolloutBatch.objects.filter(task_set=task_set, state=JobState.SUCCEEDED).first()
        if batch is None:
            batch = rollout_services.rollout_batch_create(
                task_set=task_set, scaffold="react", policy="baseline", samples=1 if quick else 2, concurrency=2,
                name="demo baseline", user=user)
            _wait(RolloutBatch, batch.id, timeout_s=timeout, label=f"rollout batch #{batch.id}", write=write)
            batch.refresh_from_db()
        summary = ", ".join(f"{key} {value:.3g}" for key, value in batch.summary.items() if isinstance(value, (int, float)))
        summary += f", mean dense reward {batch.summary.get('mean_reward', {}).get('dense', 0.0):.3g}"
        write(f"rollout batch #{batch.id}: {summary}{failures_note(batch.summary.get('failures'))}")

        # The transfer report's shape on the smallest grid: the baseline policy under all four scaffolds, 2 seeds,
        # on two of the tasks (16 episodes), so the demo stays a few minutes long on two cores.
        if not TaskSet.objects.filter(name="demo-eval").exists():
            task_set_services.task_set_create(name="demo-eval", task_ids=list(task_set.tasks.values_list(
                "task_id", flat=True).order_by("task_id")[:1 if quick else 2]), description="Demo tasks for the campaign.",
                user=user)
        eval_set = TaskSet.objects.get(name="demo-eval")
        campaign = EvalCampaign.objects.filter(task_set=eval_set, state=JobState.SUCCEEDED).first()
        if campaign is None:
            campaign = campaign_services.campaign_create(
                task_set=eval_set, policies=["baseline"], scaffolds=list(RolloutBatch.Scaffold.values), seeds=1 if quick else 2,
                max_turns=3 if quick else 15, baseline="baseline", name="demo baseline x scaffolds", user=user)
            _wait(EvalCampaign, campaign.id, timeout_s=timeout, label=f"campaign #{campaign.id}", write=write)
            campaign.refresh_from_db()
        medals = {cell["scaffold"]: cell["metrics"]["medal_rate"]["mean"] for cell in campaign.report["cells"]}
        write(f"campaign #{campaign.id}: medal rate by scaffold " + ", ".join(f"{k} {v:.2f}" for k, v in medals.items())
              + failures_note(campaign.report.get("failures")))
        demo_training_run(task_set=task_set, user=user, timeout=timeout, write=write, quick=quick)
