"""Pages of task-set audits: the list with the launch form, an audit's progress, verdicts (failing first), broken
tasks and degenerate scores, and each case's evidence (reviewers: it may hold the answers a leak reached)."""

from __future__ import annotations

from pathlib import Path

from django.http import FileResponse, Http404
from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.task_sets import selectors as task_set_selectors
from training_app.audits import selectors, services
from training_app.audits.forms import AuditForm
from training_app.audits.models import TaskSetAudit
from training_app.shared.job_list import JobListPage


class AuditList(JobListPage):
    form_class = AuditForm
    template = "training/audits/audit_list.html"
    jobs_name, launching = "audits", "audits"
    detail_url, detail_id = "audit-detail", "audit_id"

    def form_kwargs(self) -> dict:
        # Every set by name, retired ones too (the other launch forms offer live ones).
        return {"task_set_names": list(task_set_selectors.task_set_list().values_list("name", flat=True))}

    def initial(self) -> dict:
        # The set page's links name a set; the training form's "audit these settings" also names how its run plays.
        query = self.request.GET
        initial = {"task_set": query.get("task_set", "")}
        if query.getlist("scaffolds"):
            initial["scaffolds"] = query.getlist("scaffolds")
        for key in ("scaffold_options", "feedback", "reward_scheme"):
            if query.get(key):
                initial[key] = query[key]
        return initial

    def create(self, form):
        fields = form.cleaned_data
        return services.audit_create(task_set=task_set_selectors.task_set_get(name=fields["task_set"]),
                                     scaffolds=fields["scaffolds"], reward_scheme=fields["reward_scheme"],
                                     scaffold_options=fields.get("scaffold_options") or {},
                                     feedback=fields.get("feedback") or "", user=self.request.user)

    def jobs(self):
        return selectors.audit_list()


audit_list = AuditList.as_view()


def _audit_or_404(audit_id: int) -> TaskSetAudit:
    try:
        return selectors.audit_get(audit_id=audit_id)
    except TaskSetAudit.DoesNotExist:
        raise Http404(f"no audit {audit_id}")


@role_required(Role.VIEWER)
@bad_page_is_400
def audit_detail(request, audit_id):
    audit = _audit_or_404(audit_id)
    if request.method == "POST":
        if not audit.may_be_cancelled_by(request.user):
            return render(request, "403.html",
                          {"reason": "Only the audit's creator, reviewers and admins may cancel it."}, status=403)
        TaskSetAudit.request_cancel(audit.id, actor=request.user)
        return redirect("audit-detail", audit_id=audit.id)
    page = paginate(request, audit.verdicts.defer("record"))
    flagged = {(entry["task_id"], entry["solution"]) for entry in (audit.summary or {}).get("broken_tasks", [])}
    degenerate = list(audit.degenerate_scores.all())
    for row in degenerate:
        row.breaks_task = (row.task_id, row.solution) in flagged  # a medal, or a tier the reward pays
    return render(request, "training/audits/audit_detail.html", {
        "audit": audit, "verdicts": page, "page": page,
        "degenerate": degenerate, "may_see_evidence": has_role(request.user, Role.REVIEWER),
        "family_scaffold": selectors.family_scaffold_summary(audit=audit),
    })


@role_required(Role.REVIEWER)
def audit_evidence(request, audit_id, verdict_id):
    audit = _audit_or_404(audit_id)
    verdict = audit.verdicts.filter(id=verdict_id).only("evidence").first()
    if verdict is None or not verdict.evidence:
        raise Http404("no evidence for this case")
    root = Path(audit.out_dir).resolve()
    path = (root / verdict.evidence).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise Http404("the evidence file is gone")
    return FileResponse(path.open("rb"), content_type="application/json", as_attachment=True,
                        filename=f"audit-{audit.id}-{verdict.id}.json")
