"""Writes of task-set archives: queue an export or an import, run either on a worker, store imported tasks.

Both carry answers (an export holds each task's private files; an import brings new ones), so the views let only
reviewers and admins call them.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from django.conf import settings
from django.db import transaction

from sandmle.untrusted import bounded_json
from sandmle.archives import printable_name, without_host_paths
from sandmle.errors import UsageError
from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.jobs import JobState, describe_failure
from sandmle_web.queues import Queue
from tasks_app.models import Seed, SynthesizedTask, TaskSet
from tasks_app.review.difficulty import task_difficulty
from tasks_app.task_archives.models import FORMAT_CHOICES, TaskArchiveImport, TaskSetExport

FORMATS = [value for value, _ in FORMAT_CHOICES]
IMPORTED_SEED = "imported"
# An upload is kept on disk until its job has read it; this caps what one request may put there.
UPLOAD_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ServiceError(f"expected one of {', '.join(FORMATS)}", field="format")


@transaction.atomic
def task_set_export_create(*, task_set: TaskSet, fmt: str, user=None) -> TaskSetExport:
    """Queue the build of `task_set` as an archive in `fmt`; an identical finished one is handed back instead."""
    _check_format(fmt)
    if not task_set.tasks.exists():
        raise ServiceError("the task set has no tasks", field="task_set")
    ready = TaskSetExport.objects.filter(task_set=task_set, format=fmt,
                                         state=JobState.SUCCEEDED).order_by("-id").first()
    ids = sorted(task_set.tasks.values_list("task_id", flat=True))
    if ready is not None and sorted(ready.task_ids) == ids and Path(ready.archive_path).is_file():
        return ready
    export = TaskSetExport.objects.create(task_set=task_set, format=fmt, created_by=user, queue=Queue.DEFAULT.value)
    enqueue(export.task_name(), args=(export.id,), queue=Queue.DEFAULT)
    return export


def task_set_export_execute(*, export_id: int, worker: str = "") -> bool:
    """Claim a queued export and write its archive under the data dir, beating once per task."""
    from sandmle.archives.build import build_archive

    if not TaskSetExport.claim(export_id, worker=worker):
        return False
    export = TaskSetExport.objects.select_related("task_set").get(id=export_id)
    tasks = list(export.task_set.tasks.order_by("task_id").values_list("task_id", "bundle_dir"))
    archive = Path(settings.DATA_DIR) / "exports" / f"{export.id}-{uuid.uuid4().hex[:12]}" / \
        f"{export.task_set.name}-{export.format}.tar.gz"

    def progress(done: int) -> None:
        if not TaskSetExport.beat(export.id, progress=done / max(len(tasks), 1), message=f"{done}/{len(tasks)} tasks"):
            raise _Cancelled()

    try:
        ids = build_archive([Path(bundle_dir) for _, bundle_dir in tasks], archive, fmt=export.format,
                            set_name=export.task_set.name, description=export.task_set.description, on_task=progress)
    except _Cancelled:
        shutil.rmtree(archive.parent, ignore_errors=True)
        TaskSetExport.finish(export.id, state=JobState.CANCELLED)
        return True
    except Exception as error:
        shutil.rmtree(archive.parent, ignore_errors=True)
        TaskSetExport.finish(export.id, state=JobState.FAILED, error=describe_failure(error))
        raise
    TaskSetExport.objects.filter(id=export.id).update(archive_path=str(archive), size_bytes=archive.stat().st_size,
                                                     task_ids=ids)
    TaskSetExport.finish(export.id, state=JobState.SUCCEEDED)
    return True


class _Cancelled(Exception):
    pass


def task_archive_import_create(*, upload, fmt: str, metric: str = "", user=None) -> TaskArchiveImport:
    """Keep the uploaded archive under the data dir and queue its import (on the sandbox queue: SandMLE evaluators
    run there); the upload's size is capped by settings.SANDMLE_ARCHIVE_UPLOAD_MAX_BYTES."""
    _check_format(fmt)
    name = printable_name(Path(getattr(upload, "name", "") or "archive").name)[:200]
    if not name.lower().endswith(UPLOAD_SUFFIXES):
        raise ServiceError(f"upload a {', '.join(UPLOAD_SUFFIXES)} archive", field="file")
    if upload.size > settings.SANDMLE_ARCHIVE_UPLOAD_MAX_BYTES:
        raise ServiceError(f"archives are limited to {settings.SANDMLE_ARCHIVE_UPLOAD_MAX_BYTES} bytes", field="file")
    if upload.size > import_quota_left(user=user):
        raise ServiceError(f"this archive would pass your import quota ({settings.SANDMLE_IMPORT_QUOTA_BYTES} bytes "
                           f"kept by your imports and waiting uploads); {import_quota_left(user=user)} bytes are left",
                           field="file")
    folder = Path(settings.DATA_DIR) / "uploads" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    path = folder / "archive"
    with path.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    with transaction.atomic():
        job = TaskArchiveImport.objects.create(format=fmt, filename=name, upload_path=str(path), metric=metric[:32],
                                               created_by=user, queue=Queue.SANDBOX.value)
        enqueue(job.task_name(), args=(job.id,), queue=Queue.SANDBOX)
    return job


def import_quota_left(*, user, excluding: int | None = None) -> int:
    """Bytes `user`'s imports may still keep: the quota less their stored bundles and the uploads not yet read."""
    jobs = TaskArchiveImport.objects.filter(created_by=user) if user is not None else TaskArchiveImport.objects.none()
    if excluding is not None:
        jobs = jobs.exclude(id=excluding)
    kept = sum(jobs.values_list("stored_bytes", flat=True))
    for upload_path in jobs.filter(state__in=(JobState.QUEUED, JobState.RUNNING)).values_list("upload_path", flat=True):
        path = Path(upload_path) if upload_path else None
        kept += path.stat().st_size if path is not None and path.is_file() else 0
    return max(settings.SANDMLE_IMPORT_QUOTA_BYTES - kept, 0)


def _tree_bytes(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def _imported_seed() -> Seed:
    seed, _ = Seed.objects.get_or_create(name=IMPORTED_SEED, defaults=dict(
        source=Seed.Source.IMPORTED, target="", task_type="", metric="", modality="tabular", n_rows=0, n_features=0))
    return seed


def imported_task_store(*, bundle: Path, job: TaskArchiveImport) -> SynthesizedTask:
    """One imported bundle as a task waiting for review; its rule stays unknown, its spec is the bundle's own."""
    from sandmle.tasks.bundle import bundle_hash, file_hashes
    from sandmle.tasks.grading import load_grading

    grading = load_grading(bundle)
    try:  # the spec goes to a JSON column, which refuses NaN: refused here by name, not in the database's words
        task = bounded_json.loads((bundle / "task.json").read_bytes())
    except ValueError as error:
        raise ServiceError(f"task.json: {error}") from None
    spec = task.get("spec") if isinstance(task.get("spec"), dict) else {}
    ladder = grading.get("ladder") if isinstance(grading.get("ladder"), dict) else {}
    return SynthesizedTask.objects.create(
        task_id=bundle.name, run=None, seed=_imported_seed(), status=SynthesizedTask.Status.PENDING_REVIEW,
        title=f"imported from {job.filename}"[:300], modality=str(spec.get("dna", {}).get("modality", "tabular"))[:16],
        task_type=str(grading.get("task_type", ""))[:16], metric=str(grading["metric"])[:32],
        milestones=dict(grading["milestones"]), ladder=ladder, spec=spec,
        log=[{"stage": "import",
              "message": f"imported by archive import #{job.id} ({job.format}) from {job.filename}"}],
        bundle_dir=str(bundle), bundle_sha256=bundle_hash(file_hashes(bundle)),
        difficulty=task_difficulty(ladder=ladder, metric=str(grading["metric"])),
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return printable_name(text.splitlines()[0][:500] if text else type(error).__name__)


def _store_bundles(job: TaskArchiveImport, bundles: list[Path], imported: list[str], refused: list[dict]) -> None:
    for bundle in bundles:
        if SynthesizedTask.objects.filter(task_id=bundle.name).exists():
            refused.append({"task": bundle.name, "reason": "a task with this id is already in the studio"})
            shutil.rmtree(bundle, ignore_errors=True)
            continue
        try:
            with transaction.atomic():
                imported.append(imported_task_store(bundle=bundle, job=job).task_id)
        except Exception as error:  # a database refusal too: that task is rolled back, the others still import
            refused.append({"task": bundle.name, "reason": without_host_paths(_first_line(error), bundle,
                                                                              bundle.parent, settings.DATA_DIR)})
            shutil.rmtree(bundle, ignore_errors=True)


def _remove_unstored(out_dir: Path, imported: list[str]) -> None:
    """Bundle folders with no task row are removed, and the import's folder with them once nothing is kept."""
    if not out_dir.is_dir():
        return
    for child in out_dir.iterdir():
        if child.name in imported:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
    if not imported:
        shutil.rmtree(out_dir, ignore_errors=True)


def task_archive_import_execute(*, import_id: int, worker: str = "") -> bool:
    """Claim a queued import; unpack and import each task (refusals listed with their reason), store the rest.

    The job always ends: any error fails it with its reason, every task stored before it stays listed, and no
    upload or unstored bundle folder is left on disk."""
    from sandmle.archives.extract import ExtractLimits
    from sandmle.archives.load import import_archive

    if not TaskArchiveImport.claim(import_id, worker=worker):
        return False
    job = TaskArchiveImport.objects.get(id=import_id)
    out_dir = Path(settings.DATA_DIR) / "bundles" / f"import-{job.id}-{uuid.uuid4().hex[:8]}"
    upload = Path(job.upload_path)
    imported: list[str] = []
    refused: list[dict] = []
    failure = ""
    # The unpacked archive counts against its user's quota too: a small upload cannot keep more than is left.
    left = import_quota_left(user=job.created_by, excluding=job.id)
    limits = ExtractLimits(max_total_bytes=min(ExtractLimits().max_total_bytes, left))
    try:
        outcome = import_archive(upload, out_dir, fmt=job.format, metric=job.metric or None, limits=limits)
        refused.extend(outcome.refused)
        _store_bundles(job, outcome.bundles, imported, refused)
    except UsageError as error:  # the archive as a whole: unsafe, unreadable, or no task of its format
        failure = f"archive refused: {printable_name(error)}"
    except Exception as error:
        failure = printable_name(describe_failure(error))
    finally:
        _remove_unstored(out_dir, imported)
        shutil.rmtree(upload.parent, ignore_errors=True)
        summary = {"imported": imported,
                   "refused": [{"task": printable_name(entry.get("task", ""))[:100],
                                "reason": printable_name(entry.get("reason", ""))[:500]} for entry in refused]}
        stored = sum(_tree_bytes(out_dir / task_id) for task_id in imported)
        TaskArchiveImport.objects.filter(id=job.id).update(summary=summary, stored_bytes=stored)
    if failure:
        TaskArchiveImport.finish(job.id, state=JobState.FAILED,
                                 error=without_host_paths(failure, out_dir, upload.parent, settings.DATA_DIR))
    elif imported:
        TaskArchiveImport.finish(job.id, state=JobState.SUCCEEDED)
    else:
        # The reasons stay on the reviewers' page: an importer's message may quote the files, answers included,
        # and a job's error is shown on the dashboard to every role.
        TaskArchiveImport.finish(job.id, state=JobState.FAILED,
                                 error=f"no task could be imported ({len(refused)} refused: see the import's page)")
    return True
