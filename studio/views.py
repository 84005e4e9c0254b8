"""The studio's cross-app pages: the dashboard, and each job's progress as JSON for pages that poll it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from accounts.permissions import role_required
from accounts.roles import Role
from sandmle_web.worker_queues import unserved_queues
from studio import selectors
from tasks_app.models import SynthesizedTask
from tasks_app.tasks import selectors as task_selectors


@login_required
def dashboard(request):
    return render(request, "studio/dashboard.html", {
        "task_counts": [(status, SynthesizedTask.Status(status).label, count)
                        for status, count in task_selectors.task_counts().items()],
        "job_counts": selectors.job_state_counts(),
        "active_jobs": selectors.active_jobs(),
        "activity": selectors.recent_activity(),
        "unserved_queues": unserved_queues(),
    })


def _job_or_404(label: str, job_id: int):
    job = selectors.job_get(label=label, job_id=job_id)
    if job is None:
        raise Http404(f"no job {label} #{job_id}")
    return job


@require_GET
@role_required(Role.VIEWER)
def job_progress(request, label: str, job_id: int):
    """A job's state and progress; the page polls this every few seconds while the job runs."""
    response = JsonResponse(selectors.job_progress(_job_or_404(label, job_id)))
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@role_required(Role.CURATOR)
def job_cancel(request, label: str, job_id: int):
    """Cancel a job (queued at once, running at the job's next heartbeat): its creator, reviewers and admins may."""
    job = _job_or_404(label, job_id)
    if not job.may_be_cancelled_by(request.user):
        reason = "Only the job's creator, reviewers and admins may cancel it."
        if request.headers.get("Accept", "").startswith("application/json"):
            return JsonResponse({"detail": reason}, status=403)
        return render(request, "403.html", {"reason": reason}, status=403)
    type(job).request_cancel(job.id, actor=request.user)
    job.refresh_from_db()
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse(selectors.job_progress(job))
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = ""  # only a page of this studio: never an open redirect
    return redirect(back or selectors.job_detail_url(job) or "home")
