"""Writes of the task side: seeds, synthesis runs, review decisions, comments and task sets.

Services call the engine (`sandmle`) and store what it returns; views and workers call services.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from sandmle import seeds as engine_seeds
from sandmle.dna import extract_dna
from sandmle_web.dispatch import enqueue
from sandmle_web.jobs import JobState, describe_failure
from sandmle_web.llm_hosts import llm_url_refusal
from sandmle_web.queues import Queue
from tasks_app.forms import RNG_MAX
from tasks_app.models import ReviewComment, Seed, SynthesisRun, SynthesizedTask, TaskDNA, TaskSet
from tasks_app.review_difficulty import task_difficulty

SEED_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{1,79}$")


class ServiceError(ValueError):
    """A request that cannot be carried out as asked; `field` names the input at fault."""

    def __init__(self, message: str, *, field: str = "non_field_errors"):
        super().__init__(message)
        self.field = field


def _seed_store(*, engine_seed, source: str, csv_path: str = "", user=None) -> Seed:
    dna = extract_dna(engine_seed)
    dna_data = dna.to_dict()
    seed = Seed.objects.create(
        name=engine_seed.name,
        source=source,
        target=engine_seed.target,
        task_type=engine_seed.task_type,
        metric=engine_seed.metric,
        modality=engine_seed.modality,
        n_rows=int(dna_data.get("n_rows", len(engine_seed.frame))),
        n_features=int(dna_data.get("n_features", engine_seed.frame.shape[1] - 1)),
        csv_path=csv_path,
        created_by=user,
    )
    TaskDNA.objects.create(seed=seed, schema_version=int(dna_data["schema_version"]), data=dna_data)
    return seed


@transaction.atomic
def seeds_load_bundled() -> list[Seed]:
    """Store every bundled seed (scikit-learn's shipped datasets) not stored yet; idempotent."""
    created = []
    for name in engine_seeds.bundled_seed_names():
        if not Seed.objects.filter(name=name).exists():
            created.append(_seed_store(engine_seed=engine_seeds.load_bundled_seed(name), source=Seed.Source.BUNDLED))
    return created


def seed_create_from_upload(
    *, name: str, content: bytes, target: str, task_type: str = "", metric: str = "", user=None
) -> Seed:
    """Validate an uploaded CSV as a seed, keep the file under the data dir and store its DNA."""
    if not SEED_NAME_PATTERN.match(name or ""):
        raise ServiceError("use 2-80 lowercase letters, digits, '-' or '_', starting with a letter or digit", field="name")
    if Seed.objects.filter(name=name).exists():
        raise ServiceError(f"a seed named {name!r} already exists", field="name")
    try:
        engine_seed = engine_seeds.load_csv_seed(
            content, target=target, task_type=task_type or None, metric=metric or None, name=name
        )
    except engine_seeds.SeedError as error:
        raise ServiceError(str(error), field=getattr(error, "field", "file")) from None
    seeds_dir = Path(settings.DATA_DIR) / "seeds"
    seeds_dir.mkdir(parents=True, exist_ok=True)
    csv_path = seeds_dir / f"{name}.csv"
    # Written under a temporary name and renamed last, inside the transaction: a failure anywhere (DNA, disk, the
    # database) leaves neither a Seed row nor a file behind.
    partial_path = seeds_dir / f".{name}.csv.partial"
    try:
        with transaction.atomic():
            seed = _seed_store(engine_seed=engine_seed, source=Seed.Source.UPLOAD, csv_path=str(csv_path), user=user)
            partial_path.write_bytes(content)
            partial_path.replace(csv_path)
    finally:
        partial_path.unlink(missing_ok=True)
    return seed


def seed_engine_object(*, seed: Seed):
    """The engine's seed for a stored row (bundled ones are re-read from the package that ships them)."""
    if seed.source == Seed.Source.BUNDLED:
        return engine_seeds.load_bundled_seed(seed.name)
    return engine_seeds.load_csv_seed(
        Path(seed.csv_path).read_bytes(), target=seed.target, task_type=seed.task_type, metric=seed.metric, name=seed.name
    )


def synthesis_llm_defaults() -> dict:
    """The LLM settings a new synthesis run starts from: the deployment's SANDMLE_LLM_* settings."""
    return {"llm_url": settings.SANDMLE_LLM_URL, "llm_model": settings.SANDMLE_LLM_MODEL,
            "llm_key_env": settings.SANDMLE_LLM_KEY_ENV}


def _check_llm_settings(*, llm_url: str, llm_model: str, llm_key_env: str) -> None:
    if bool(llm_url) != bool(llm_model):
        raise ServiceError("give both an LLM URL and a model, or neither", field="llm_model" if llm_url else "llm_url")
    if llm_url:
        parts = urlsplit(llm_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ServiceError("use an http(s) base URL such as http://host:8000/v1", field="llm_url")
        if parts.username or parts.password:
            raise ServiceError("keep credentials out of the URL; name the variable holding the key instead",
                               field="llm_url")
        # The run's prompts carry the rule family and the key goes along: only to hosts the admin allows.
        refusal = llm_url_refusal(llm_url)
        if refusal:
            raise ServiceError(refusal, field="llm_url")
    if llm_key_env and llm_key_env not in settings.SANDMLE_LLM_KEY_ENVS:
        allowed = ", ".join(settings.SANDMLE_LLM_KEY_ENVS) or "none"
        raise ServiceError(f"{llm_key_env!r} is not an allowed key variable (allowed: {allowed}; SANDMLE_LLM_KEY_ENVS "
                           f"lists them)", field="llm_key_env")


@transaction.atomic
def synthesis_run_create(
    *, seed: Seed, count: int, rng: int = 0, llm_url: str = "", llm_model: str = "", llm_key_env: str = "", user=None
) -> SynthesisRun:
    """Queue a synthesis run; with llm_url and llm_model its domain and rule stages ask that endpoint, sending the
    key held in the environment variable llm_key_env (one of settings.SANDMLE_LLM_KEY_ENVS; "" for the default)."""
    if seed.source == Seed.Source.IMPORTED:
        raise ServiceError("imported tasks' placeholder seed holds no data to synthesize from", field="seed")
    if not 1 <= count <= 200:
        raise ServiceError("ask for between 1 and 200 tasks", field="count")
    if not 0 <= rng <= RNG_MAX:
        raise ServiceError(f"use an rng seed from 0 to {RNG_MAX}", field="rng")
    _check_llm_settings(llm_url=llm_url, llm_model=llm_model, llm_key_env=llm_key_env)
    run = SynthesisRun.objects.create(
        seed=seed, count=count, rng=rng, llm_url=llm_url, llm_model=llm_model,
        llm_key_env=llm_key_env if llm_url else "", created_by=user
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
            from sandmle.llm import ChatClient

            _check_llm_settings(llm_url=run.llm_url, llm_model=run.llm_model, llm_key_env=run.llm_key_env)
            llm = ChatClient(run.llm_url, run.llm_model, api_key_env=run.llm_key_env or settings.SANDMLE_LLM_KEY_ENV)
        out_dir = Path(settings.DATA_DIR) / "bundles" / f"run-{run.id}"

        def progress(done: int, total: int) -> None:
            if not SynthesisRun.beat(run.id, progress=done / max(total, 1), message=f"{done}/{total} tasks"):
                raise _Cancelled()

        # Each task is stored as it is made, with the count kept so far: a run taken up again after its worker died
        # starts at that index and makes each remaining task once (task ids follow from seed, rng and index).
        done = int(run.summary.get("done", 0))

        def keep(index: int, result) -> None:
            with transaction.atomic():
                synthesized_task_store(run=run, result=result)
                SynthesisRun.objects.filter(id=run.id).update(summary={**run.summary, "done": index + 1})

        synthesize(seed_engine_object(seed=run.seed), count=run.count, rng=run.rng, out_dir=out_dir, llm=llm,
                   progress=progress, start=done, on_result=keep)
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
    from tasks_app.models import TaskAuditEntry
    from tasks_app.review_services import audit_record

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


# Approve, reject, claim and comment keep their signatures for the callers that predate the review workflow (the demo,
# fixtures, the first API routes); they go through tasks_app.review_services, so the quorum and the audit hold there.
def task_approve(*, task: SynthesizedTask, user, comment: str = "") -> SynthesizedTask:
    from tasks_app.review_services import review_decide

    return review_decide(task=task, user=user, verdict="approve", reason=comment or "Approved.")


def task_reject(*, task: SynthesizedTask, user, reason: str) -> SynthesizedTask:
    from tasks_app.review_services import review_decide

    if not reason.strip():
        raise ServiceError("say why the task is rejected", field="reason")
    return review_decide(task=task, user=user, verdict="reject", reason=reason)


def task_assign(*, task: SynthesizedTask, user) -> SynthesizedTask:
    """A reviewer claims a pending task so others skip it in the queue (re-claiming one's own is fine)."""
    from tasks_app.review_services import review_assign

    task.refresh_from_db(fields=["assigned_to", "status"])
    if task.assigned_to_id not in (None, user.id):  # a claim is taken, never taken over (admins reassign instead)
        raise ServiceError(f"task {task.task_id} is not open for claiming", field="status")
    return review_assign(task=task, user=user, assignee=user, reason="claimed")


def task_comment_add(
    *, task: SynthesizedTask, user, body: str, visibility: str = ReviewComment.Visibility.REVIEWERS
) -> ReviewComment:
    from tasks_app.review_services import comment_add

    return comment_add(task=task, user=user, body=body, visibility=visibility)


def _task_set_name_check(name: str) -> None:
    if not SEED_NAME_PATTERN.match(name or ""):
        raise ServiceError("use 2-80 lowercase letters, digits, '-' or '_'", field="name")
    if TaskSet.objects.filter(name=name).exists():
        raise ServiceError(f"a task set named {name!r} already exists", field="name")


@transaction.atomic
def task_set_create_matching(*, name: str, tasks, description: str = "", user=None, field: str = "filter") -> TaskSet:
    """A task set of every approved task in the queryset `tasks` (a picker's filter), linked in bulk inserts.

    The ids never travel through the client: at 10,000 matching tasks a checkbox per task is not a form anyone
    can post, and reading them back in batches keeps SQLite under its bound-variable limit.
    """
    _task_set_name_check(name)
    task_pks = list(tasks.filter(status=SynthesizedTask.Status.APPROVED).order_by().values_list("pk", flat=True))
    if not task_pks:
        raise ServiceError("no approved task matches the filter", field=field)
    task_set = TaskSet.objects.create(name=name, description=description, created_by=user)
    link = TaskSet.tasks.through
    link.objects.bulk_create([link(taskset_id=task_set.pk, synthesizedtask_id=pk) for pk in task_pks], batch_size=500)
    return task_set


@transaction.atomic
def task_set_create(*, name: str, task_ids: list[str], description: str = "", user=None) -> TaskSet:
    _task_set_name_check(name)
    tasks = list(SynthesizedTask.objects.filter(task_id__in=task_ids))
    missing = sorted(set(task_ids) - {task.task_id for task in tasks})
    if missing:
        raise ServiceError(f"unknown tasks: {', '.join(missing[:5])}", field="task_ids")
    unapproved = sorted(task.task_id for task in tasks if task.status != SynthesizedTask.Status.APPROVED)
    if unapproved:
        raise ServiceError(f"only approved tasks form task sets; not approved: {', '.join(unapproved[:5])}", field="task_ids")
    if not tasks:
        raise ServiceError("a task set needs at least one approved task", field="task_ids")
    task_set = TaskSet.objects.create(name=name, description=description, created_by=user)
    task_set.tasks.set(tasks)
    return task_set
