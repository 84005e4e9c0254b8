"""Pages of latency studies: launch (a task, a seed dataset or an uploaded table), progress, the per-seed charts and
the ratio."""

from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from accounts.permissions import role_required
from accounts.roles import Role
from tasks_app.models import Seed, SynthesizedTask
from training_app.latency import selectors, services
from training_app.latency.forms import LatencyStudyForm
from training_app.latency.uploads import limit_table_upload
from training_app.models import LatencyStudy
from training_app.shared.job_list import JobListPage


@csrf_exempt  # only so that the table's limit is in place before the body is read; _latency_list checks CSRF
def latency_list(request):
    limit = limit_table_upload(request) if request.method == "POST" else None
    return _latency_list(request, limit)


class LatencyList(JobListPage):
    form_class = LatencyStudyForm
    template = "training/latency/latency_list.html"
    jobs_name, launching = "studies", "latency studies"
    detail_url, detail_id = "latency-detail", "study_id"

    def __init__(self, request, limit):
        super().__init__(request)
        self.limit = limit

    def form_kwargs(self) -> dict:
        return {"task_ids": selectors.latency_task_ids(), "seed_names": selectors.latency_seed_names()}

    def initial(self) -> dict:
        return {}

    def refusal(self) -> tuple[str, str] | None:
        return ("table", self.limit.refused) if self.limit is not None and self.limit.refused else None

    def create(self, form):
        fields = dict(form.cleaned_data)
        task_id = fields.pop("task")
        seed_name = fields.pop("seed")
        task = SynthesizedTask.objects.get(task_id=task_id) if task_id else None
        seed = Seed.objects.get(name=seed_name) if seed_name else None
        return services.latency_study_create(task=task, seed=seed, user=self.request.user, **fields)

    def jobs(self):
        return selectors.latency_study_list().order_by("-created_at", "-id")


_latency_list = csrf_protect(LatencyList.as_view())


def _study_or_404(study_id: int) -> LatencyStudy:
    try:
        return selectors.latency_study_get(study_id=study_id)
    except LatencyStudy.DoesNotExist:
        raise Http404(f"no latency study {study_id}")


@role_required(Role.VIEWER)
def latency_detail(request, study_id):
    study = _study_or_404(study_id)
    if request.method == "POST":
        if not study.may_be_cancelled_by(request.user):
            return render(request, "403.html",
                          {"reason": "Only the study's creator, reviewers and admins may cancel it."}, status=403)
        LatencyStudy.request_cancel(study.id, actor=request.user)
        return redirect("latency-detail", study_id=study.id)
    return render(request, "training/latency/latency_detail.html", {
        "study": study, "seed_rows": selectors.seed_rows(study.result),
        "figures": selectors.latency_figures(study.result),
    })


@role_required(Role.VIEWER)
def latency_result_export(request, study_id):
    study = _study_or_404(study_id)
    if not study.result:
        raise Http404("this study has no result yet")
    response = JsonResponse(study.result, json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="latency-study-{study.id}.json"'
    return response
