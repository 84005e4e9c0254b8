"""Writes of latency studies: create (a task's spec or an uploaded table, checked by the engine), execute on a
worker."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from django.conf import settings
from django.db import transaction

from sandmle.errors import UsageError
from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.job_loop import run_job
from sandmle_web.jobs import JobState
from sandmle_web.queues import Queue
from tasks_app.models import Seed, SynthesizedTask
from training_app.models import LatencyStudy

MAX_FULL_ROWS = 2_000_000
MAX_SEEDS = 10
MAX_SYNTH_ROWS = 200  # the most training rows synthesis gives a task
# The engine's words name its CLI flags; the studio's fields are these.
_ENGINE_FIELDS = {"--csv": "table", "--target": "target", "--rows": "full_rows", "seeds": "seeds",
                  "pipelines": "pipelines", "full_rows": "full_rows"}


def _service_error(error: UsageError) -> ServiceError:
    field, _, problem = str(error).partition(": ")
    return ServiceError(problem or str(error), field=_ENGINE_FIELDS.get(field, "non_field_errors"))


def _store_table(upload, folder: Path) -> Path:
    # Written under a temporary name and renamed: a half-written table is never read as a whole one.
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".table-{uuid.uuid4().hex}.partial"
    with open(partial, "wb") as sink:
        for chunk in upload.chunks():
            sink.write(chunk)
    final = folder / "table.csv"
    partial.replace(final)
    return final


def latency_study_create(*, task: SynthesizedTask | None = None, seed: Seed | None = None, table=None,
                         target: str = "", full_rows: int | None = None, seeds: int = 3,
                         pipelines: list[str] | None = None, name: str = "", user=None) -> LatencyStudy:
    """Validate and queue a study of a synthesized task's spec or of a spec drawn from a seed dataset (full_rows
    default 200,000), or of an uploaded table (`table`, a Django upload, with its `target`; full_rows then caps its
    training rows)."""
    from sandmle.latency.study import FULL_ROWS, LARGE_CSV_MAX_BYTES, check_table, pipeline_subset
    from training_app.latency.uploads import sweep_finished_tables, table_allowance

    sweep_finished_tables()
    if sum(source is not None for source in (task, seed, table)) != 1:
        raise ServiceError("choose one of a task, a seed dataset or an uploaded table", field="task")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 1 <= seeds <= MAX_SEEDS:
        raise ServiceError(f"seeds: {seeds!r} must be a whole number from 1 to {MAX_SEEDS}", field="seeds")
    if full_rows is not None and not 1 <= int(full_rows) <= MAX_FULL_ROWS:
        raise ServiceError(f"must be from 1 to {MAX_FULL_ROWS:,} training rows", field="full_rows")
    try:
        chosen = list(pipeline_subset(list(pipelines or [])))
    except UsageError as error:
        raise _service_error(error) from None
    if task is not None:
        n_train = (task.spec or {}).get("n_train")
        if not n_train:
            raise ServiceError(f"{task.task_id} has no spec to materialize again (an imported task): upload its "
                               "table instead", field="task")
        full_rows = full_rows or FULL_ROWS
        if full_rows <= n_train:
            raise ServiceError(f"{full_rows} must be more than the task's synthesized {n_train} training rows",
                               field="full_rows")
    elif seed is not None:
        full_rows = full_rows or FULL_ROWS
        if full_rows <= MAX_SYNTH_ROWS:
            raise ServiceError(f"{full_rows} must be more than the {MAX_SYNTH_ROWS} training rows a synthesized task "
                               "may have", field="full_rows")
    else:
        if not target:
            raise ServiceError("name the table's target column", field="target")
        allowance, reason = table_allowance(user)
        if table.size > min(allowance, LARGE_CSV_MAX_BYTES):
            raise ServiceError(f"the file is {table.size / 2**20:.1f} MiB; {reason}", field="table")
    with transaction.atomic():
        study = LatencyStudy.objects.create(name=name, task=task, seed=seed, target=target if table is not None else "",
                                            table_name=Path(getattr(table, "name", "") or "").name[:200],
                                            full_rows=full_rows, seeds=seeds, pipelines=chosen,
                                            queue=Queue.SANDBOX.value, created_by=user)
        if table is not None:
            # A random suffix: SQLite may hand a deleted row's id out again; a study never reads another's table.
            folder = Path(settings.DATA_DIR) / "latency" / f"{study.id}-{uuid.uuid4().hex[:12]}"
            path = _store_table(table, folder)
            try:
                check_table(path, target=target)
            except UsageError as error:
                shutil.rmtree(folder, ignore_errors=True)
                raise _service_error(error) from None
            study.table_path = str(path)
            study.save(update_fields=["table_path"])
        # Every pipeline is a sandboxed step, so the study runs where agent code runs.
        enqueue("workers.latency.run_latency_study", args=(study.id,), queue=Queue.SANDBOX)
    return study


def latency_study_execute(*, study_id: int, worker: str = "") -> bool:
    """Claim a queued study and run it; the engine works in a thread while this one beats, stores progress and asks
    for cancellation, so the row's heartbeat lives through long full-scale steps."""
    from sandmle.latency.study import latency_study, latency_study_csv, pipeline_subset, spec_from_dna
    from sandmle.seeds.dna import extract_dna
    from sandmle.synth.pipeline import TaskSpec
    from tasks_app.seeds.services import seed_engine_object
    from training_app.latency.uploads import remove_table

    if not LatencyStudy.claim(study_id, worker=worker):
        return False
    study = LatencyStudy.objects.select_related("task").get(id=study_id)
    spec = TaskSpec.from_dict(study.task.spec) if study.task_id and study.task else None
    engine_seed = seed_engine_object(seed=study.seed) if study.seed_id and study.seed else None
    pipelines = pipeline_subset(study.pipelines)

    def run_study(put, should_stop):
        options = {"seeds": study.seeds, "pipelines": pipelines,
                   "progress": lambda done, total, message: put((done / total, message)), "should_stop": should_stop}
        if study.table_path:
            return latency_study_csv(Path(study.table_path), target=study.target, rows=study.full_rows, **options)
        if spec is not None:
            return latency_study(spec, full_rows=study.full_rows, **options)
        if engine_seed is not None:
            drawn = spec_from_dna(extract_dna(engine_seed), seed_name=engine_seed.name, rng=0)
            return latency_study(drawn, full_rows=study.full_rows, **options)
        raise UsageError("the study's task or seed was deleted")

    # Each item is already (fraction, message); a step can be long, so the loop beats between items too.
    run = run_job(LatencyStudy, study.id, engine=run_study, store=lambda progress: progress, poll_s=1.0)
    try:
        if run.error is not None:
            error = run.error
            LatencyStudy.finish(study.id, state=JobState.FAILED, error=f"{type(error).__name__}: {error}")
            return True
        result = run.result
        LatencyStudy.objects.filter(id=study.id).update(result=result)
        LatencyStudy.finish(study.id, state=JobState.SUCCEEDED if result["complete"] else JobState.CANCELLED)
        return True
    finally:
        remove_table(study)  # the study has ended: its figures are in the result, the table goes
