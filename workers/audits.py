"""Task-set audits on the `sandbox` queue (the attacks are untrusted code). A redelivered message finds the row
claimed; one whose worker died resumes the audit, whose judged cases are never played again."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.audits.run_task_set_audit", acks_late=True, reject_on_worker_lost=True)
def run_task_set_audit(audit_id: int) -> bool:
    from training_app.audits.models import TaskSetAudit
    from training_app.audits.services import audit_execute

    with held_job(TaskSetAudit, audit_id) as worker:
        return audit_execute(audit_id=audit_id, worker=worker)
