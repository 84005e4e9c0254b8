"""A studio with one real object behind every URL parameter, for the role × endpoint matrix (tests/web/test_role_matrix.py).

Every job ran through the engine or the worker's own task function where that is cheap (a rollout batch, a campaign,
a latency study), so pages and downloads show real records; the training run's rows are written as its worker would
write them (a GRPO step needs torch, which the matrix does not: the trajectories file holds real rollout records)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from tests.hidden_values import hidden_values

REVIEWERS_ONLY_NOTE = "matrix note: the second band is the giveaway"
TURN_NOTE = "matrix turn note: this call reads the private folder"


@dataclass
class Studio:
    seed: object
    synthesis_run: object
    regeneration_run: object  # a queued regeneration of `pending`: a public row about a task with a hidden family
    pending: object  # a task waiting for review: the review routes act on it
    approved: object  # a task of the task set, with trajectories in the batch
    image_task: object
    image_name: str
    task_set: object
    batch: object
    trajectory: object
    comment: object
    turn_comment: object
    saved_view: object
    campaign: object
    episode: object
    training_run: object
    training_step: int
    latency_study: object
    task_set_export: object = None  # a finished archive of the task set (its download is served)
    archive_import: object = None  # a queued import of an uploaded archive
    audit: object = None  # a finished one-attack audit of the task set
    audit_verdict: object = None
    frontier_run: object = None  # a finished re-level of the task set for the baseline policy
    secrets: list[str] = field(default_factory=list)

    def job(self, label: str):
        """The studio's job of the model with this label ('tasks_app.synthesisrun')."""
        jobs = [self.synthesis_run, self.batch, self.campaign, self.training_run, self.latency_study,
                self.task_set_export, self.archive_import, self.audit, self.frontier_run]
        return next(job for job in jobs if job._meta.label_lower == label)


def _store_copy(*, run, result, task_id: str):
    """One more stored task from an engine result under a new id: the same bundle, waiting for review."""
    from tasks_app.synthesis import services as synthesis_services

    renamed = type(result)(**{**result.__dict__, "task_id": task_id})
    return synthesis_services.synthesized_task_store(run=run, result=renamed)


def _image_task(*, users, out_dir: Path):
    from sandmle.seeds.load import load_bundled_seed
    from sandmle.synth import synthesize
    from sandmle_web.jobs import JobState
    from tasks_app.models import Seed, SynthesisRun
    from tasks_app.synthesis import services as synthesis_services
    from tasks_app.tasks import bundle_files

    (result,) = synthesize(load_bundled_seed("digits"), count=1, rng=3, out_dir=out_dir)
    run = SynthesisRun.objects.create(seed=Seed.objects.get(name="digits"), count=1, state=JobState.SUCCEEDED,
                                      created_by=users["curator"])
    task = synthesis_services.synthesized_task_store(run=run, result=result)
    return task, bundle_files.image_names(task.bundle_dir)[0]


def _training_run(*, users, task_set, batch, out_dir: Path, capture):
    """A finished one-step run: its metric line names a trajectories file inside its output_dir, as the trainer's."""
    from sandmle_web.jobs import JobState
    from training_app.models import TrainingCheckpoint, TrainingMetric, TrainingRun
    from django.conf import settings

    from tests.checkpoint_dirs import checkpoint_dir
    from training_app.runs import services as training_services

    with capture(execute=False):
        run = training_services.training_run_create(task_set=task_set, model=checkpoint_dir(settings.DATA_DIR), steps=1,
                                                    report_to=["tensorboard"], user=users["curator"])
    out_dir.mkdir(parents=True)
    (out_dir / "tensorboard").mkdir()
    (out_dir / "tensorboard" / "events.out.tfevents.1.matrix").write_bytes(b"matrix event file")
    trajectories = out_dir / "step-1-trajectories.jsonl"
    trajectories.write_text("".join(json.dumps(t.record, sort_keys=True) + "\n" for t in batch.trajectories.all()))
    TrainingMetric.objects.create(run=run, step=1, metrics={"step": 1, "reward_mean": 0.4, "reward_std": 0.1,
                                                            "loss": 0.02, "trajectories": str(trajectories)})
    TrainingCheckpoint.objects.create(run=run, step=1, path=str(out_dir / "checkpoint-1"))
    TrainingRun.objects.filter(id=run.id).update(output_dir=str(out_dir), state=JobState.SUCCEEDED, progress=1.0,
                                                 result={"steps_done": 1})
    run.refresh_from_db()
    return run


def _campaign(*, users, task, capture):
    """A campaign of one episode (its own one-task set keeps the worker's run short)."""
    from tasks_app.task_sets import services as task_set_services
    from training_app.campaigns import services as campaign_services
    from workers.evaluation import run_campaign

    task_set = task_set_services.task_set_create(name="matrix-campaign", task_ids=[task.task_id], user=users["curator"])
    with capture(execute=False):
        campaign = campaign_services.campaign_create(task_set=task_set, policies=["baseline"], scaffolds=["react"],
                                                     seeds=1, max_turns=3, user=users["curator"])
    assert run_campaign(campaign.id) is True
    campaign.refresh_from_db()
    assert campaign.state == "succeeded" and campaign.report.get("cells"), campaign.error
    return campaign


def _latency_study(*, users, task, capture):
    from training_app.latency import services as latency_services
    from workers.latency import run_latency_study

    with capture(execute=False):
        study = latency_services.latency_study_create(task=task, full_rows=1000, seeds=1, pipelines=["linear"],
                                                      name="matrix", user=users["curator"])
    assert run_latency_study(study.id) is True
    study.refresh_from_db()
    assert study.state == "succeeded" and study.result, study.error
    return study


def _audit(*, users, task, capture):
    """An audit of one attack on one scaffold over a one-task set, run by the worker's own task function."""
    from tasks_app.task_sets import services as task_set_services
    from training_app.audits import services as audit_services
    from workers.audits import run_task_set_audit

    task_set = task_set_services.task_set_create(name="matrix-audit", task_ids=[task.task_id], user=users["curator"])
    with capture(execute=False):
        audit = audit_services.audit_create(task_set=task_set, scaffolds=["react"], attacks=["submission_bom"],
                                            user=users["curator"])
    assert run_task_set_audit(audit.id) is True
    audit.refresh_from_db()
    assert audit.state == "succeeded" and audit.verdicts.exists(), audit.error
    return audit


def build_studio(*, users, stored_tasks, task_set, batch, iris_results, out_dir: Path, capture) -> Studio:
    from tasks_app.models import Seed, SynthesizedTask
    from tasks_app.review import services as review_services
    from tasks_app.tasks import regenerate

    synthesis_run = stored_tasks[0].run
    synthesis_run.created_by = users["curator"]  # a curator may cancel only the jobs they launched
    synthesis_run.save(update_fields=["created_by"])
    pending = _store_copy(run=synthesis_run, result=iris_results[0], task_id=iris_results[0].task_id + "-matrix")
    assert pending.status == SynthesizedTask.Status.PENDING_REVIEW
    trajectory = batch.trajectories.select_related("task").order_by("id").first()
    image_task, image_name = _image_task(users=users, out_dir=out_dir / "bundles")
    reviewer = users["reviewer"]
    comment = review_services.comment_add(task=pending, user=reviewer, body=REVIEWERS_ONLY_NOTE,
                                          visibility="reviewers")
    turn_comment = review_services.comment_add(task=trajectory.task, user=reviewer, body=TURN_NOTE,
                                               visibility="reviewers", trajectory=trajectory, turn=0)
    saved_view = review_services.saved_view_save(user=reviewer, name="matrix view",
                                                 filters={"status": "pending_review"})
    campaign = _campaign(users=users, task=trajectory.task, capture=capture)
    with capture(execute=False):
        regeneration_run = regenerate.task_regenerate(task=pending, user=users["curator"], rng=77)
    studio = Studio(
        seed=Seed.objects.get(name="iris"), synthesis_run=synthesis_run, regeneration_run=regeneration_run,
        pending=pending, approved=trajectory.task,
        image_task=image_task, image_name=image_name, task_set=task_set, batch=batch, trajectory=trajectory,
        comment=comment, turn_comment=turn_comment, saved_view=saved_view, campaign=campaign,
        episode=campaign.episodes.order_by("id").first(),
        training_run=_training_run(users=users, task_set=task_set, batch=batch, out_dir=out_dir / "training",
                                   capture=capture),
        training_step=1, latency_study=_latency_study(users=users, task=trajectory.task, capture=capture),
        audit=(audit := _audit(users=users, task=trajectory.task, capture=capture)),
        audit_verdict=audit.verdicts.order_by("id").first(),
    )
    studio.task_set_export, studio.archive_import = _archives(users=users, task_set=task_set, capture=capture)
    studio.frontier_run = _frontier_run(users=users, task_set=task_set, capture=capture)
    studio.secrets = _secrets([*stored_tasks, pending, image_task]) + [REVIEWERS_ONLY_NOTE, TURN_NOTE]
    return studio


def _frontier_run(*, users, task_set, capture):
    """A re-level of the task set for the baseline policy, run by the worker's own task function on the engine."""
    from tasks_app.frontier import services
    from workers.frontier import run_frontier

    with capture(execute=False):
        run = services.frontier_run_create(task_set=task_set, user=users["curator"], policy="baseline", samples=1)
    assert run_frontier(run.id) is True
    run.refresh_from_db()
    assert run.state == "succeeded", run.error
    return run


def _archives(*, users, task_set, capture):
    """A task-set export built in-process (its archive exists) and a queued archive import."""
    from tasks_app.task_archives import services
    from tasks_app.task_archives.models import TaskArchiveImport, TaskSetExport

    with capture(execute=False):
        export = services.task_set_export_create(task_set=task_set, fmt="bundle", user=users["reviewer"])
    assert services.task_set_export_execute(export_id=export.id, worker="matrix")
    archive_import = TaskArchiveImport.objects.create(format="bundle", filename="matrix.tar.gz",
                                                      created_by=users["reviewer"])
    return TaskSetExport.objects.get(id=export.id), archive_import


def _secrets(tasks) -> list[str]:
    """The tasks' hidden values, less any that also occur in the task's public files (a threshold that happens to
    equal a value of train.csv, an answer row that matches the sample submission): those are not secrets."""
    from tasks_app.tasks import bundle_files

    secrets = []
    for task in tasks:
        public = "\n".join(bundle_files.read_text(task.bundle_dir, f"public/{name}")
                           for name in ("description.md", "train.csv", "test.csv", "sample_submission.csv"))
        secrets += [value for value in hidden_values(task) if value not in public and value not in secrets]
    return secrets
