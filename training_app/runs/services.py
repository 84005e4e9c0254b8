"""Writes of training runs: create (validated by the engine's load_train_config), execute on a GPU worker, store
each step's metrics and checkpoints as rows."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from django.conf import settings
from django.db import transaction

from sandmle.rl.config import config_fields
from sandmle_web.dispatch import enqueue
from sandmle_web.job_loop import run_job
from sandmle_web.jobs import JobState
from sandmle_web.llm_hosts import endpoint_refusal, key_env_refusal
from sandmle_web.queues import Queue
from sandmle_web.errors import ServiceError
from tasks_app.models import TaskSet
from training_app.audits.services import training_audit_gate
from training_app.models import TrainingCheckpoint, TrainingMetric, TrainingRun, Trajectory
from training_app.shared.model_roots import allowed_model_path, ensure_tiny_model
from training_app.shared.checkpoints import checkpoint_problem

# Every setting of the engine's key table but the ones the studio fills itself (paths, LoRA from lora_r, the eval
# tasks from a task set); blank ones keep the engine's defaults (SandMLE's released recipe).
STUDIO_FILLED = ("model", "tasks", "eval_tasks", "output_dir", "lora", "dataset")
GRPO_SETTINGS = tuple(entry["key"] for entry in config_fields("grpo") if entry["key"] not in STUDIO_FILLED)
SFT_SETTINGS = ("steps", "learning_rate", "save_every", "report_to", "scaffold", "scaffold_options")
# Settings naming an endpoint the worker sends requests to: the rubric judge gets the key and the episodes'
# transcripts, a vLLM server the prompts and the weights. Only hosts the admin allows (sandmle_web.llm_hosts).
ENDPOINT_SETTINGS = ("judge_url", "vllm_server_url")


def endpoint_settings_refusal(values: dict, *, key_env_named: bool = False) -> ServiceError | None:
    """The refusal of a run's endpoints and key variable, naming the setting at fault; None when all may be used.

    The key variable is checked wherever a judge is named (the only reader of its value) or the user named one."""
    for key in ENDPOINT_SETTINGS:
        if values.get(key):
            refusal = endpoint_refusal(str(values[key]))
            if refusal:
                return ServiceError(refusal, field=key)
    if values.get("judge_url") or key_env_named:
        refusal = key_env_refusal(str(values.get("judge_key_env") or ""))
        if refusal:
            return ServiceError(refusal, field="judge_key_env")
    return None


def is_tiny_random_model(model_dir: str) -> bool:
    """True for a checkpoint shaped as build_tiny_checkpoint makes it (Qwen3, hidden 64, 2 layers): a smoke model.

    Read from the model's own config.json, so a run launched from the form is labelled as honestly as the demo's.
    """
    try:
        config = json.loads((Path(model_dir) / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return config.get("hidden_size") == 64 and config.get("num_hidden_layers") == 2


def _sft_dataset(task_set: TaskSet, path: Path, *, scaffold: str, scaffold_options: dict) -> Path:
    """The task set's stored rollout trajectories as a conversational dataset (the paper's SFT baseline): only the
    run's scaffold's conversations, and react's in the run's dialect (studio unless its options say otherwise): the
    grammar the run trains in, and the one the audit gate compared (another scaffold's conversation, an AIDE review
    say, would train a grammar no audit of the run's settings played)."""
    from sandmle.audit.coverage import played_options
    from sandmle.rl.sft import export_sft_dataset

    dialect_options = {"dialect": played_options(scaffold, scaffold_options)["dialect"]} if scaffold == "react" else None
    records = (row.record for row in Trajectory.objects.filter(batch__task_set=task_set).iterator())
    if not export_sft_dataset(records, path, scaffold=scaffold, scaffold_options=dialect_options):
        raise ServiceError(f"the task set has no {scaffold} rollout trajectories"
                           + (f" in the {dialect_options['dialect']} dialect" if dialect_options else "")
                           + " with assistant turns to fine-tune on", field="task_set")
    return path


def _config_values(*, kind: str, task_set: TaskSet, model: str, settings_values: dict, lora_r: int | None,
                   output_dir: Path, name: str = "", eval_task_set: TaskSet | None = None) -> dict:
    names = GRPO_SETTINGS if kind == "grpo" else SFT_SETTINGS
    values = {key: settings_values[key] for key in names if settings_values.get(key) is not None}
    values |= {"model": model, "output_dir": str(output_dir), "run_name": name.strip() or values.get("run_name"),
               "lora": {"r": lora_r, "alpha": 2 * lora_r} if lora_r else None}
    if kind == "grpo":
        values["tasks"] = sorted(str(task.bundle_dir) for task in task_set.tasks.all())
        if eval_task_set is not None:
            values["eval_tasks"] = sorted(str(task.bundle_dir) for task in eval_task_set.tasks.all())
    else:
        values["dataset"] = [str(output_dir / "sft-dataset.jsonl")]
    return values


@transaction.atomic
def training_run_create(*, task_set: TaskSet, kind: str = "grpo", model: str, lora_r: int | None = None,
                        name: str = "", user=None, smoke: bool = False, eval_task_set: TaskSet | str | None = None,
                        **settings_values) -> TrainingRun:
    """Validate with the engine's own checks (ConfigError names the key) and queue the run on the gpu queue."""
    from sandmle.rl.config import load_train_config
    from sandmle.settings import ConfigError

    if kind not in TrainingRun.Kind.values:
        raise ServiceError(f"{kind!r}: expected grpo or sft", field="kind")
    if not task_set.tasks.exists():
        raise ServiceError("the task set has no tasks", field="task_set")
    if isinstance(eval_task_set, str) and eval_task_set:
        eval_task_set = TaskSet.objects.filter(name=eval_task_set).first()
        if eval_task_set is None:
            raise ServiceError("no such task set", field="eval_task_set")
    eval_task_set = eval_task_set or None
    model = model.strip().removeprefix("hf:")  # a checkpoint as rollouts name it (hf:PATH) is the same directory
    unknown = sorted(set(settings_values) - set(GRPO_SETTINGS))
    if unknown:
        raise ServiceError(f"unknown setting {unknown[0]!r}", field=unknown[0])
    # A random suffix: SQLite may hand a deleted row's id out again, and a run must never resume another's files.
    output_dir = Path(settings.DATA_DIR) / "training" / f"{uuid.uuid4().hex[:12]}"
    model = model.strip().removeprefix("hf:")
    refused_model = None
    if user is not None:  # a person's launch (form, API): only the checkpoints they may use, checked before any read
        try:
            model = allowed_model_path(model, user=user)
        except ServiceError as error:
            refused_model = error
    key_env_named = bool(settings_values.get("judge_key_env"))
    if settings_values.get("judge_url") and not key_env_named:  # a judge gets the deployment's key, as policies do
        settings_values["judge_key_env"] = settings.SANDMLE_LLM_KEY_ENV
    values = _config_values(kind=kind, task_set=task_set, model=model, settings_values=settings_values,
                            lora_r=lora_r, output_dir=output_dir, name=name, eval_task_set=eval_task_set)
    try:
        config = load_train_config(values, kind=kind)
    except ConfigError as error:
        field = "lora_r" if error.key.startswith("lora") else error.key
        raise ServiceError(str(error).partition(": ")[2] or str(error), field=field) from None
    refused_endpoint = endpoint_settings_refusal(config.values, key_env_named=key_env_named)  # after a preset's values
    if refused_endpoint is not None:
        raise refused_endpoint
    # A set (or evaluation set) never audited, whose last audit failed, or whose audit does not cover how this run
    # plays (an attack, the scaffold or its options, the feedback, the reward's judge, a task added or changed
    # since) warns, or is refused under SANDMLE_REQUIRE_AUDIT.
    audit_warning = training_audit_gate(task_set=task_set, config=config,
                                        eval_task_set=eval_task_set if kind == "grpo" else None)
    # The model after the engine's checks, whose messages name every other key.
    if refused_model is not None:
        raise refused_model
    ensure_tiny_model(model)
    problem = checkpoint_problem(model)
    if problem:
        raise ServiceError(problem, field="model")
    if kind == "sft":
        _sft_dataset(task_set, output_dir / "sft-dataset.jsonl", scaffold=config.scaffold,
                     scaffold_options=config.scaffold_options)
    run = TrainingRun.objects.create(name=name, kind=kind, task_set=task_set, config=config.to_dict(),
                                     output_dir=str(output_dir), queue=Queue.GPU.value, created_by=user,
                                     smoke_model=smoke or is_tiny_random_model(config.model),
                                     audit_warning=audit_warning[:300])
    enqueue("workers.training.run_training", args=(run.id,), queue=Queue.GPU)
    return run


def step_store(*, run: TrainingRun, line: dict) -> None:
    """Store one step's metrics and (if it saved one) its checkpoint; a resumed run's replayed step overwrites."""
    step = int(line["step"])
    TrainingMetric.objects.update_or_create(run=run, step=step, defaults={"metrics": line})
    if line.get("checkpoint"):
        TrainingCheckpoint.objects.update_or_create(run=run, step=step, defaults={"path": str(line["checkpoint"])})
    if "successors_made" in line:  # an adaptive run: its accepted (and held) successors become tasks of the studio
        from training_app.adaptive.services import adaptive_successors_sync

        adaptive_successors_sync(run=run)


def training_run_execute(*, run_id: int, worker: str = "") -> bool:
    """Claim a queued run and train; rows are written here, in the job's own thread, so SQLite sees one writer.

    The trainer's thread only puts each step's line on a queue. A run whose output_dir already holds a checkpoint
    (a requeued run after a lost worker) resumes from it with its optimizer, scheduler and RNG state.
    """
    from sandmle.rl.config import load_train_config
    from sandmle.rl.run_files import last_checkpoint

    if not TrainingRun.claim(run_id, worker=worker):
        return False
    run = TrainingRun.objects.get(id=run_id)
    config = load_train_config(dict(run.config), kind=run.kind)
    # Again here, before any request: the admin may have taken a host or key variable off the lists since the launch.
    refused_endpoint = endpoint_settings_refusal(config.values)
    if refused_endpoint is not None:
        TrainingRun.finish(run.id, state=JobState.FAILED, error=f"{refused_endpoint.field}: {refused_endpoint}")
        return True
    total = max(int(config.steps or 1), 1)
    resume = last_checkpoint(config.output_dir) is not None

    def train(put, should_stop):
        from sandmle.rl.grpo import train_grpo
        from sandmle.rl.sft import train_sft

        trainer = train_grpo if run.kind == "grpo" else train_sft
        return trainer(config, resume=resume, on_step=put, should_stop=should_stop)

    def store(line: dict):
        step_store(run=run, line=line)
        return int(line["step"]) / total, f"step {line['step']}/{total} · reward {line.get('reward_mean', 0):.3f}"

    job = run_job(TrainingRun, run.id, engine=train, store=store, poll_s=0.5)
    if job.error is not None:
        from sandmle.episodes.failures import EpisodesFailed

        if isinstance(job.error, EpisodesFailed):  # the episodes' own reason, on the page: no worker traceback to read
            TrainingRun.finish(run.id, state=JobState.FAILED, error=str(job.error))
            return True
        job.fail()
    result = job.result
    # Checkpoints the trainer wrote but no step line reported (the final save) get their rows too.
    for path in result.get("checkpoints", []):
        step = int(Path(path).name.rsplit("-", 1)[1])
        TrainingCheckpoint.objects.update_or_create(run=run, step=step, defaults={"path": str(path)})
    TrainingRun.objects.filter(id=run.id).update(result=result)
    stopped = result.get("stopped") or job.cancelled
    TrainingRun.finish(run.id, state=JobState.CANCELLED if stopped else JobState.SUCCEEDED)
    return True


def training_run_requeue(*, run_id: int) -> bool:
    """Put a failed (say, worker lost) run back in the queue; it resumes from its last checkpoint."""
    requeued = TrainingRun.objects.filter(id=run_id, state=JobState.FAILED).update(
        state=JobState.QUEUED, error="", finished_at=None, cancel_requested=False)
    if requeued:
        enqueue("workers.training.run_training", args=(run_id,), queue=Queue.GPU)
    return requeued == 1
