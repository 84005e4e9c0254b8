"""Jobs survive their workers: a real Celery worker is SIGKILLed (its whole process group) in the middle of a synthesis
run, a rollout batch, an evaluation campaign and a GRPO run; a second worker takes the job up once its heartbeat is
stale (the sweep sent by a real `celery beat`), and it finishes with nothing missing, nothing duplicated and nothing
finished redone. One redis-server and one beat serve the module; the heartbeat timeout is shortened to seconds."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from django.conf import settings

from sandmle_web.jobs import JobState
from tests.integration.fault_tally import tally
from tests.integration.processes import KillableWorker, RedisServer, celery_beat, worker_env

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FAST_SWEEP = {"SANDMLE_JOB_HEARTBEAT_TIMEOUT_S": "4", "SANDMLE_JOB_HEARTBEAT_INTERVAL_S": "1",
              "SANDMLE_JOB_SWEEP_S": "1", "SANDMLE_JOB_MAX_ATTEMPTS": "3"}


class Workers:
    """The module's one live worker; `replace` kills it with SIGKILL and starts the next one."""

    def __init__(self, env: dict) -> None:
        self.env = env
        self.current = KillableWorker(env=env, data_dir=str(settings.DATA_DIR), concurrency=2, label="faults")
        self.killed_pids: set[int] = set()

    def replace(self) -> float:
        self.killed_pids |= self.current.group_pids()
        self.current.kill()
        killed_at = time.time()
        self.current = KillableWorker(env=self.env, data_dir=str(settings.DATA_DIR), concurrency=2, label="faults")
        return killed_at


@pytest.fixture(scope="module")
def broker(django_db_setup, django_db_blocker):
    redis = RedisServer()
    env = worker_env(database_name=str(settings.DATABASES["default"]["NAME"]), broker_url=redis.url,
                     data_dir=str(settings.DATA_DIR), extra_env=FAST_SWEEP)
    with celery_beat(env=env, data_dir=str(settings.DATA_DIR)):
        workers = Workers(env)
        try:
            yield {"url": redis.url, "workers": workers}
        finally:
            workers.current.stop()
            redis.stop()


def staged_by(pids: set[int]) -> list[str]:
    """The staging entries whose owner record names one of `pids`."""
    import tempfile

    from sandmle.sandbox.staging import OWNER_SUFFIX, staging_root

    root = staging_root(Path(tempfile.gettempdir()))
    found = []
    for record in (p for p in root.iterdir() if p.name.endswith(OWNER_SUFFIX)) if root else ():
        try:
            if int(record.read_text().split()[0]) in pids:
                found.append(record.name)
        except (FileNotFoundError, IndexError, ValueError):  # released meanwhile, or not a record
            continue
    return found


def send(broker, task_name: str, job_id: int, queue: str) -> None:
    from celery import Celery

    Celery(broker=broker["url"]).send_task(task_name, args=(job_id,), queue=queue)


def wait_until(condition, *, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def kill_mid_job(broker, model, job_id: int, progressed, *, timeout_s: float = 120) -> float:
    """Wait for the job's first result, SIGKILL its worker, start another; the job must not have finished yet."""
    wait_until(progressed, timeout_s=timeout_s, what=f"the first result of {model.__name__} {job_id}")
    killed_at = broker["workers"].replace()
    job = model.objects.get(id=job_id)
    # Running, or already queued again: the sweep may have run while the next worker started.
    assert not job.is_finished, f"{model.__name__} finished before the kill ({job.state}); make it longer"
    return killed_at


def finished(model, job_id: int, timeout_s: float = 180):
    return wait_until(lambda: (row := model.objects.get(id=job_id)).is_finished and row, timeout_s=timeout_s,
                      what=f"{model.__name__} {job_id} to finish")


def taken_over(job) -> None:
    assert job.state == JobState.SUCCEEDED, job.error
    assert job.attempts == 2, f"claimed {job.attempts} times"


def test_synthesis_run_survives_sigkill(broker, record_property, django_capture_on_commit_callbacks):
    from tasks_app.models import Seed, SynthesisRun, SynthesizedTask
    from tasks_app.seeds import services as seed_services
    from tasks_app.synthesis import services as synthesis_services

    seed_services.seeds_load_bundled()
    with django_capture_on_commit_callbacks(execute=False):
        run = synthesis_services.synthesis_run_create(seed=Seed.objects.get(name="iris"), count=4, rng=5)
    send(broker, "workers.synthesis.run_synthesis", run.id, "default")
    kill_mid_job(broker, SynthesisRun, run.id, lambda: SynthesizedTask.objects.filter(run_id=run.id).exists())
    first = SynthesizedTask.objects.filter(run_id=run.id).order_by("created_at").first()
    first_inode = os.stat(Path(first.bundle_dir) / "task.json").st_ino
    run = finished(SynthesisRun, run.id)
    tasks = list(SynthesizedTask.objects.filter(run=run))
    tally(record_property, faults=1, jobs_completed=int(run.state == JobState.SUCCEEDED), expected=4,
          keys=[task.task_id for task in tasks])
    taken_over(run)
    assert len(tasks) == 4 == len({task.task_id for task in tasks}) and run.summary["tasks"] == 4
    assert os.stat(Path(first.bundle_dir) / "task.json").st_ino == first_inode  # made once, not rebuilt
    out_dir = Path(first.bundle_dir).parent
    assert not [p.name for p in out_dir.iterdir() if p.name.startswith(".")], "a half-built bundle was left"
    assert all((Path(task.bundle_dir) / "task.json").is_file() for task in tasks)


def test_rollout_batch_survives_sigkill(broker, task_set, record_property, django_capture_on_commit_callbacks):
    from training_app.models import RolloutBatch, Trajectory
    from training_app.rollouts import services

    with django_capture_on_commit_callbacks(execute=False):
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=4,
                                              concurrency=1)
    send(broker, "workers.rollouts.run_rollout_batch", batch.id, "sandbox")
    kill_mid_job(broker, RolloutBatch, batch.id, lambda: Trajectory.objects.filter(batch_id=batch.id).exists())
    before = set(Trajectory.objects.filter(batch_id=batch.id).values_list("id", flat=True))
    batch = finished(RolloutBatch, batch.id)
    total = task_set.tasks.count() * 4
    pairs = list(Trajectory.objects.filter(batch=batch).values_list("task__task_id", "sample_index"))
    tally(record_property, faults=1, jobs_completed=int(batch.state == JobState.SUCCEEDED), expected=total, keys=pairs)
    taken_over(batch)
    assert len(pairs) == total == len(set(pairs))
    assert before <= set(Trajectory.objects.filter(batch=batch).values_list("id", flat=True))
    # Every episode stored counts once: a rerun of a finished one would push the count past the total.
    assert batch.progress_message == f"{total} of {total} episodes stored" and batch.summary["episodes"] == total
    # The killed worker's staged public files, scratch dirs and zygote dirs were swept by the next worker's staging.
    assert not staged_by(broker["workers"].killed_pids), "a killed worker's staging entries were left on disk"


def test_campaign_survives_sigkill(broker, task_set, record_property, django_capture_on_commit_callbacks):
    from sandmle.evaluation.campaign import read_episodes
    from training_app.campaigns.services import campaign_create
    from training_app.models import CampaignEpisode, EvalCampaign

    with django_capture_on_commit_callbacks(execute=False):
        campaign = campaign_create(task_set=task_set, policies=["baseline"], scaffolds=["react"], seeds=3)
    send(broker, "workers.evaluation.run_campaign", campaign.id, "sandbox")
    kill_mid_job(broker, EvalCampaign, campaign.id,
                 lambda: CampaignEpisode.objects.filter(campaign_id=campaign.id).exists())
    campaign = finished(EvalCampaign, campaign.id)
    total = task_set.tasks.count() * 3
    keys = [record["key"] for record in read_episodes(Path(campaign.out_dir))]
    tally(record_property, faults=1, jobs_completed=int(campaign.state == JobState.SUCCEEDED), expected=total,
          keys=keys)
    taken_over(campaign)
    assert len(keys) == total == len(set(keys))  # the file never got a finished episode twice
    assert CampaignEpisode.objects.filter(campaign=campaign).count() == total
    assert campaign.report.get("complete") is True


@pytest.mark.torch
def test_training_run_resumes_from_its_last_checkpoint_after_sigkill(broker, task_set, tmp_path, record_property,
                                                                     django_capture_on_commit_callbacks):
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.run_files import last_checkpoint
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from training_app.models import TrainingCheckpoint, TrainingMetric, TrainingRun
    from training_app.runs import services as training_services

    model = build_tiny_checkpoint(tmp_path / "tiny", reply_menu=TABULAR_REPLY_MENU)  # its replies run code
    steps = 6
    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(
            task_set=task_set, model=str(model), steps=steps, group_size=2, tasks_per_step=1, learning_rate=1e-4,
            reward="dense", max_turns=1, max_tokens=8, save_every=1)
    send(broker, "workers.training.run_training", run.id, "gpu")
    killed_at = kill_mid_job(broker, TrainingRun, run.id,
                             lambda: TrainingCheckpoint.objects.filter(run_id=run.id).exists(), timeout_s=180)
    resumed_from = int(last_checkpoint(Path(run.output_dir)).name.rsplit("-", 1)[1])
    assert resumed_from < steps
    run = finished(TrainingRun, run.id, timeout_s=240)
    lines = [json.loads(line)["step"] for line in (Path(run.output_dir) / "metrics.jsonl").read_text().splitlines()]
    tally(record_property, faults=1, jobs_completed=int(run.state == JobState.SUCCEEDED), expected=steps, keys=lines)
    taken_over(run)
    assert list(TrainingMetric.objects.filter(run=run).values_list("step", flat=True)) == list(range(1, steps + 1))
    assert lines == list(range(1, steps + 1))  # the killed attempt's steps past its checkpoint were dropped, redone once
    stored = [m.metrics for m in TrainingMetric.objects.filter(run=run).order_by("step")]
    # Every step, before and after the kill, ran its replies' programs in the sandbox and trained on their grades.
    assert all(m["sandbox_s"] > 0 and m["reward_mean"] >= 0.1 and m["tokens"] == 2 for m in stored), stored
    assert any(m["grad_norm"] > 0 for m in stored), stored
    step_files = sorted((Path(run.output_dir) / "trajectories").glob("step-*.jsonl"))
    written = {int(path.stem.split("-")[1]): path.stat().st_mtime for path in step_files}
    assert all(written[step] < killed_at for step in range(1, resumed_from + 1))  # not redone
    assert all(written[step] > killed_at for step in range(resumed_from + 1, steps + 1))
    assert run.result["steps_done"] == steps
