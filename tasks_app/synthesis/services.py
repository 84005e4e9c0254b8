"""Writes of synthesis runs: create (LLM settings checked), execute on a worker, store each task as it is made."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import transaction

from accounts.roles import Role, has_role
from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.jobs import JobState, describe_failure
from sandmle_web.llm_hosts import endpoint_refusal, key_env_refusal
from sandmle_web.queues import Queue
from tasks_app.models import Seed, SynthesisRun, SynthesizedTask, TaskAuditEntry
from tasks_app.review.difficulty import task_difficulty
from tasks_app.review.services import audit_record
from tasks_app.seeds.services import seed_engine_object
from tasks_app.synthesis.models import MIN_TRAIN_ROWS, RNG_MAX


def synthesis_llm_defaults() -> dict:
    """The LLM settings a new synthesis run starts from: the deployment's SANDMLE_LLM_* settings."""
    return {"llm_url": settings.SANDMLE_LLM_URL, "llm_model": settings.SANDMLE_LLM_MODEL,
            "llm_key_env": settings.SANDMLE_LLM_KEY_ENV}


# "Keep going until `count` tasks pass the critic" tries at most this many tasks per task asked for.
UNTIL_PASSING_TRIES_PER_TASK = 4


def seed_rule_families(seed: Seed) -> tuple[str, ...]:
    """The hidden-rule families the engine draws from for this seed's modality and task type."""
    from sandmle.synth import rules

    if seed.modality == "image":
        return rules.IMAGE_FAMILIES
    if seed.modality == "text":
        return rules.TEXT_REGRESSION_FAMILIES if seed.task_type == "regression" else rules.TEXT_FAMILIES
    return rules.REGRESSION_FAMILIES if seed.task_type == "regression" else rules.CLASSIFICATION_FAMILIES


def _check_controls(*, seed: Seed, user, rule_family: str, n_train: int | None, until_passing: bool,
                    noise_scale: float | None, min_headroom: float | None, difficulty: str) -> dict:
    """The engine controls of a run as stored; each refusal names its field."""
    from sandmle.synth.noise import NOISE_SCALE_MAX
    from sandmle.synth.pipeline import MAX_TRAIN
    from sandmle.synth.targets import DIFFICULTIES

    controls: dict = {}
    if rule_family and not has_role(user, Role.REVIEWER):
        # Which family a task's hidden rule has is the reviewers' secret; so is choosing it.
        raise ServiceError("choosing the rule family needs the reviewer role", field="rule_family")
    if rule_family:
        families = seed_rule_families(seed)
        if rule_family not in families:
            raise ServiceError(f"{rule_family!r} does not fit a {seed.modality} {seed.task_type} seed; expected one "
                               f"of {', '.join(families)}", field="rule_family")
        controls["rule_family"] = rule_family
    if n_train is not None:
        if not MIN_TRAIN_ROWS <= n_train <= MAX_TRAIN:
            raise ServiceError(f"use {MIN_TRAIN_ROWS} to {MAX_TRAIN} training rows", field="n_train")
        controls["n_train"] = n_train
    if until_passing:
        controls["until_passing"] = True
    if noise_scale is not None:
        if not 0 <= noise_scale <= NOISE_SCALE_MAX:
            raise ServiceError(f"use a noise strength from 0 (clean) to {NOISE_SCALE_MAX:g}", field="noise_scale")
        if noise_scale != 1.0:  # 1 is the engine's own strength
            controls["noise_scale"] = float(noise_scale)
    if min_headroom is not None:
        if not 0 <= min_headroom <= 1:
            raise ServiceError("use a least headroom from 0 to 1", field="min_headroom")
        controls["min_headroom"] = float(min_headroom)
    if difficulty:
        if difficulty not in DIFFICULTIES:
            raise ServiceError(f"{difficulty!r} is not a difficulty; expected one of {', '.join(DIFFICULTIES)}",
                               field="difficulty")
        controls["difficulty"] = difficulty
    return controls


def _check_llm_settings(*, llm_url: str, llm_model: str, llm_key_env: str) -> None:
    if bool(llm_url) != bool(llm_model):
        raise ServiceError("give both an LLM URL and a model, or neither", field="llm_model" if llm_url else "llm_url")
    # The run's prompts carry the rule family and the key goes along: only to endpoints the admin allows.
    refusal = endpoint_refusal(llm_url) if llm_url else ""
    if refusal:
        raise ServiceError(refusal, field="llm_url")
    refusal = key_env_refusal(llm_key_env) if llm_key_env else ""
    if refusal:
        raise ServiceError(refusal, field="llm_key_env")


@transaction.atomic
def synthesis_run_create(
    *, seed: Seed, count: int, rng: int = 0, llm_url: str = "", llm_model: str = "", llm_key_env: str = "", user=None,
    rule_family: str = "", n_train: int | None = None, until_passing: bool = False, noise_scale: float | None = None,
    min_headroom: float | None = None, difficulty: str = "",
) -> SynthesisRun:
    """Queue a synthesis run; with llm_url and llm_model its domain and rule stages ask that endpoint, sending the
    key held in the environment variable llm_key_env (one of settings.SANDMLE_LLM_KEY_ENVS; "" for the default).

    rule_family restricts the hidden rule to one family, n_train fixes the training rows, and until_passing keeps
    making tasks until `count` pass the critic (at most UNTIL_PASSING_TRIES_PER_TASK tries per task asked for).
    noise_scale multiplies the noise intensities (0: clean tasks; None or 1: the engine's). min_headroom and
    difficulty are targets: a task that passes the critic but misses them is stored rejected, its reason naming the
    target, and does not count towards until_passing."""
    if seed.source == Seed.Source.IMPORTED:
        raise ServiceError("imported tasks' placeholder seed holds no data to synthesize from", field="seed")
    if not 1 <= count <= 200:
        raise ServiceError("ask for between 1 and 200 tasks", field="count")
    if not 0 <= rng <= RNG_MAX:
        raise ServiceError(f"use an rng seed from 0 to {RNG_MAX}", field="rng")
    _check_llm_settings(llm_url=llm_url, llm_model=llm_model, llm_key_env=llm_key_env)
    controls = _check_controls(seed=seed, user=user, rule_family=rule_family, n_train=n_train,
                               until_passing=until_passing, noise_scale=noise_scale, min_headroom=min_headroom,
                               difficulty=difficulty)
    run = SynthesisRun.objects.create(
        seed=seed, count=count, rng=rng, llm_url=llm_url, llm_model=llm_model,
        llm_key_env=llm_key_env if llm_url else "", created_by=user, controls=controls
    )
    enqueue("workers.synthesis.run_synthesis", args=(run.id,), queue=Queue.DEFAULT)
    return run


def synthesis_run_execute(*, run_id: int, worker: str = "") -> bool:
    """Claim a queued run and synthesize its tasks; False when another worker has it already."""
    from sandmle.synth import synthesize

    if not SynthesisRun.claim(run_id, worker=worker):
        return False
    run = SynthesisRun.objects.select_related("seed").get(id=run_id)
    try:
        llm = None
        if run.llm_url:
            from sandmle.llm.client import ChatClient

            _check_llm_settings(llm_url=run.llm_url, llm_model=run.llm_model, llm_key_env=run.llm_key_env)
            llm = ChatClient(run.llm_url, run.llm_model, api_key_env=run.llm_key_env or settings.SANDMLE_LLM_KEY_ENV)
        out_dir = Path(settings.DATA_DIR) / "bundles" / f"run-{run.id}"

        controls = run.controls or {}
        until_passing = bool(controls.get("until_passing"))
        # Until enough pass, task indices run on up to a cap; each index is still made once (see `keep`).
        last_index = run.count * UNTIL_PASSING_TRIES_PER_TASK if until_passing else run.count

        def progress(done: int, total: int) -> None:
            if until_passing:
                passed = (SynthesizedTask.objects.filter(run=run)
                          .exclude(rejected_by=SynthesizedTask.RejectedBy.VALIDATOR).count())
                fraction, message = passed / run.count, f"{passed}/{run.count} tasks passed the critic, {done} made"
            else:
                fraction, message = done / max(total, 1), f"{done}/{total} tasks"
            if not SynthesisRun.beat(run.id, progress=min(fraction, 1.0), message=message):
                raise _Cancelled()
            if until_passing and passed >= run.count:
                raise _Enough()

        # Each task is stored as it is made, with the count kept so far: a run taken up again after its worker died
        # starts at that index and makes each remaining task once (task ids follow from seed, rng and index).
        done = int(run.summary.get("done", 0))

        def keep(index: int, result) -> None:
            with transaction.atomic():
                synthesized_task_store(run=run, result=result)
                SynthesisRun.objects.filter(id=run.id).update(summary={**run.summary, "done": index + 1})

        families = (controls["rule_family"],) if controls.get("rule_family") else None
        try:
            synthesize(seed_engine_object(seed=run.seed), count=last_index, rng=run.rng, out_dir=out_dir, llm=llm,
                       progress=progress, start=done, on_result=keep, families=families,
                       n_train=controls.get("n_train"), noise_scale=controls.get("noise_scale", 1.0),
                       min_headroom=controls.get("min_headroom"), difficulty=controls.get("difficulty"))
        except _Enough:
            pass
        stored = SynthesizedTask.objects.filter(run=run)
        total, rejected = stored.count(), stored.filter(rejected_by=SynthesizedTask.RejectedBy.VALIDATOR).count()
        SynthesisRun.objects.filter(id=run.id).update(
            summary={"tasks": total, "validated": total - rejected, "rejected": rejected}
        )
        SynthesisRun.finish(run.id, state=JobState.SUCCEEDED)
    except _Cancelled:
        SynthesisRun.finish(run.id, state=JobState.CANCELLED)
    except Exception as error:
        SynthesisRun.finish(run.id, state=JobState.FAILED, error=describe_failure(error))
        raise
    return True


class _Cancelled(Exception):
    pass


class _Enough(Exception):
    """Enough tasks passed the critic: the run stops making more."""


def synthesized_task_store(*, run: SynthesisRun, result) -> SynthesizedTask:
    """Store one engine SynthesisResult: validated tasks wait for review, rejected ones keep their reasons."""
    spec = result.spec.to_dict() if hasattr(result.spec, "to_dict") else dict(result.spec)
    domain = spec.get("domain", {}) or {}
    validated = result.status == "validated"
    previous_status = SynthesizedTask.objects.filter(task_id=result.task_id).values_list("status", flat=True).first()
    task, _ = SynthesizedTask.objects.update_or_create(
        task_id=result.task_id,
        defaults=dict(
            run=run,
            seed=run.seed,
            status=SynthesizedTask.Status.PENDING_REVIEW if validated else SynthesizedTask.Status.REJECTED,
            rejected_by="" if validated else SynthesizedTask.RejectedBy.VALIDATOR,
            reasons=list(result.reasons or []),
            title=domain.get("title", ""),
            domain_id=result.domain_id or "",
            sector=domain.get("sector", ""),
            rule_family=result.rule_family or "",
            modality=spec.get("dna", {}).get("modality", run.seed.modality),
            task_type=spec.get("dna", {}).get("task_type", run.seed.task_type),
            metric=spec.get("metric", run.seed.metric),
            milestones=dict(result.milestones or {}),
            ladder=dict(result.ladder or {}),
            spec=spec,
            log=list(result.log or []),
            bundle_dir=str(result.bundle_dir or ""),
            bundle_sha256=result.bundle_sha256 or "",
            difficulty=task_difficulty(ladder=dict(result.ladder or {}), metric=spec.get("metric", run.seed.metric)),
        ),
    )
    _audit_stored(task=task, run=run, previous_status=previous_status)
    return task


def _audit_stored(*, task: SynthesizedTask, run: SynthesisRun, previous_status: str | None) -> None:
    """The audit entry of a task stored by a run: the critic validated it (pending review) or rejected it."""
    if previous_status == task.status:
        return
    regenerates = (run.summary or {}).get("regenerates", "")
    if task.status == SynthesizedTask.Status.REJECTED:
        reason = "; ".join(task.reasons) or "rejected by the critic"
    else:
        reason = "validated by the critic"
    if regenerates:
        reason += f"; new version of {regenerates}"
    audit_record(task=task, actor=run.created_by, from_value=previous_status, to_value=task.status, reason=reason,
                 via=TaskAuditEntry.Via.REGENERATE if regenerates else TaskAuditEntry.Via.SYNTHESIS)
