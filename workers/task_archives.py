"""Task-set archives: building an export on the `default` queue, importing an upload on the `sandbox` queue (a SandMLE
evaluator is run there to read its contract). Both claim their row, so a redelivered message does nothing."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.task_archives.build_task_set_archive", acks_late=True, reject_on_worker_lost=True)
def build_task_set_archive(export_id: int) -> bool:
    from tasks_app.task_archives.models import TaskSetExport
    from tasks_app.task_archives.services import task_set_export_execute

    with held_job(TaskSetExport, export_id) as worker:
        return task_set_export_execute(export_id=export_id, worker=worker)


@shared_task(name="workers.task_archives.import_task_archive", acks_late=True, reject_on_worker_lost=True)
def import_task_archive(import_id: int) -> bool:
    from tasks_app.task_archives.models import TaskArchiveImport
    from tasks_app.task_archives.services import task_archive_import_execute

    with held_job(TaskArchiveImport, import_id) as worker:
        return task_archive_import_execute(import_id=import_id, worker=worker)
