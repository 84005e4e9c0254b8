"""Pages of training runs: launch, the run page with live curves, its config and checkpoints, a metrics endpoint,
one step's groups with their advantages, and the comparison of several runs."""

from __future__ import annotations

from pathlib import Path

from django.contrib import messages
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.id_params import row_ids
from sandmle_web.errors import ServiceError
from training_app.adaptive.charts import lineage_figure
from training_app.adaptive.selectors import adaptive_view, frontier_now
from training_app.audits.selectors import audit_prefill_url
from training_app.models import TrainingMetric, TrainingRun
from training_app.runs import charts, selectors, services
from training_app.runs.charts import metric_figures
from training_app.runs.forms import TrainingRunForm
from training_app.runs.selectors import training_run_shown_config
from training_app.shared.job_list import JobListPage, task_set_of
from training_app.shared.model_roots import model_choices
from sandmle.rl.presets import RUN_PRESETS
from sandmle.tasks.grade_report import stored_grade


class TrainingRunList(JobListPage):
    form_class = TrainingRunForm
    template = "training/runs/training_run_list.html"
    jobs_name, launching = "runs", "training runs"
    detail_url, detail_id = "training-run-detail", "run_id"

    def form_kwargs(self) -> dict:
        offered = model_choices(self.request.user) if has_role(self.request.user, Role.CURATOR) else []
        return super().form_kwargs() | {"model_options": offered}

    def unbound_kwargs(self) -> dict:
        # "Start from" a run preset (?preset=): its values fill the form; an unknown name starts from the defaults.
        preset = self.request.GET.get("preset")
        self.start_from = preset if preset in RUN_PRESETS else ""
        return {"start_from": self.start_from}

    def create(self, form):
        fields = form.launch_values()
        self.audit_links = _audit_links(fields)  # shown if the gate refuses the launch
        try:
            run = services.training_run_create(task_set=task_set_of(fields), user=self.request.user, **fields)
        except ServiceError as error:
            if error.field != "task_set" or "audit" not in str(error):
                self.audit_links = []
            raise
        if run.audit_warning:
            messages.warning(self.request, f"Launched, but {run.audit_warning}.")
        return run

    def jobs(self):
        return TrainingRun.objects.select_related("task_set").defer("result").order_by("-created_at", "-id")

    def extra_context(self) -> dict:
        return {"presets": RUN_PRESETS, "start_from": self.start_from, "audit_links": getattr(self, "audit_links", [])}


def _audit_links(fields: dict) -> list[tuple[str, str]]:
    """(task set, audit form address) for the run's set and its evaluation set, each filled with how the run plays:
    the preset's scaffold, options and feedback under the values sent (as load_train_config applies them)."""
    from sandmle.rl.presets import preset_values

    played = preset_values(fields["preset"]) if fields.get("preset") in RUN_PRESETS else {}
    played |= {key: fields[key] for key in ("scaffold", "scaffold_options", "feedback")
               if fields.get(key) not in (None, "", {})}
    names = [fields.get("task_set"), fields.get("eval_task_set")]
    return [(name, audit_prefill_url(task_set=name, settings=played)) for name in dict.fromkeys(names) if name]


training_run_list = TrainingRunList.as_view()


def _chart_choices() -> dict:
    return {"x_axes": charts.X_AXES.items(), "smoothings": charts.SMOOTHING}


def _run_or_404(run_id: int) -> TrainingRun:
    run = TrainingRun.objects.select_related("task_set").filter(id=run_id).first()
    if run is None:
        raise Http404(f"no training run {run_id}")
    return run


@role_required(Role.VIEWER)
def training_run_detail(request, run_id):
    run = _run_or_404(run_id)
    if request.method == "POST":
        if not run.may_be_cancelled_by(request.user):
            return render(request, "403.html", {"reason": "A run is cancelled by whoever started it, or a reviewer."},
                          status=403)
        TrainingRun.request_cancel(run.id, actor=request.user)
        return redirect("training-run-detail", run_id=run.id)
    metrics = list(run.metrics.all())
    x, smoothing = charts.chart_options(request.GET)
    adaptive = adaptive_view(run=run, show_rules=has_role(request.user, Role.REVIEWER))
    if adaptive:
        adaptive["figure"] = lineage_figure(rates=adaptive["rates"], level_changes=adaptive["level_changes"],
                                            band=adaptive["band"])
    return render(request, "training/runs/training_run_detail.html", {
        "adaptive": adaptive, "frontier": frontier_now(run) if adaptive else None,
        "run": run, "steps": metrics, "checkpoints": selectors.checkpoints_with_provenance(run),
        "audit_these_settings": audit_prefill_url(task_set=run.task_set.name, settings=run.config or {}),
        "recipe": selectors.training_run_recipe(run), "reply_menu": selectors.run_reply_menu(run),
        "config_items": sorted(training_run_shown_config(
            run, show_host_paths=has_role(request.user, Role.ADMIN)).items()),
        "show_host_paths": has_role(request.user, Role.ADMIN),
        "model_name": Path(str(run.config.get("model") or "")).name,
        "may_cancel": run.may_be_cancelled_by(request.user), "log_dirs": run_log_dirs(run),
        "zero_spread_steps": charts.zero_spread_steps([row.metrics for row in metrics]),
        "figure_blocks": [(f"{name}-figure", f"{name}-curve", figure) for name, figure in
                          metric_figures([row.metrics for row in metrics], x=x, smoothing=smoothing).items()]
        if metrics else [], "chart_x": x, "chart_smoothing": smoothing, **_chart_choices(),
    })


@role_required(Role.VIEWER)
def training_run_metrics(request, run_id):
    """The run's state, metric lines and figures; the run page polls this while the run trains."""
    run = _run_or_404(run_id)
    lines = [row.metrics for row in run.metrics.all()]
    x, smoothing = charts.chart_options(request.GET)
    response = JsonResponse({"id": run.id, "state": run.state, "steps": lines,
                             "figures": metric_figures(lines, x=x, smoothing=smoothing),
                             "checkpoints": [{"step": c.step, "path": c.path} for c in run.checkpoints.all()]})
    response["Cache-Control"] = "no-store"
    return response


@role_required(Role.VIEWER)
def training_step_trajectories(request, run_id, step):
    """The JSONL of one step's episodes, as the trainer wrote it; only a file inside the run's output_dir is served."""
    run = _run_or_404(run_id)
    path = selectors.step_trajectory_path(run, step)
    return FileResponse(path.open("rb"), content_type="application/x-ndjson", as_attachment=True,
                        filename=f"run-{run.id}-step-{step}-trajectories.jsonl")


def run_log_dirs(run: TrainingRun) -> list[dict]:
    """The trackers the run reports to, each with its folder under output_dir (as sandmle.rl.trackers names it)."""
    from sandmle.rl.trackers import LOG_DIRS

    root = Path(run.output_dir)
    return [{"tracker": name, "path": str(root / LOG_DIRS[name]), "exists": (root / LOG_DIRS[name]).is_dir()}
            for name in (run.config.get("report_to") or []) if name in LOG_DIRS]


@role_required(Role.VIEWER)
def training_run_logs(request, run_id, tracker):
    """A tracker's log folder as a .tar.gz (TensorBoard opens it unpacked); regular files only, no link followed."""
    import os
    import stat
    import tarfile
    import tempfile

    run = _run_or_404(run_id)
    folder = next((Path(entry["path"]) for entry in run_log_dirs(run) if entry["tracker"] == tracker), None)
    if folder is None or folder.is_symlink() or not folder.is_dir():
        raise Http404("no log folder for this tracker")
    archive = tempfile.TemporaryFile()  # removed when the response closes it
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for parent, dirs, files in os.walk(folder):  # os.walk does not descend into linked folders
            for name in sorted(files):
                path = Path(parent) / name
                if stat.S_ISREG(os.lstat(path).st_mode):
                    tar.add(path, arcname=f"{tracker}/{path.relative_to(folder)}", recursive=False)
    archive.seek(0)
    return FileResponse(archive, content_type="application/gzip", as_attachment=True,
                        filename=f"run-{run.id}-{tracker}.tar.gz")


def _task_ids(run: TrainingRun) -> set[str]:
    return set(run.task_set.tasks.values_list("task_id", flat=True)) if run.task_set_id else set()


@role_required(Role.VIEWER)
def training_step_groups(request, run_id, step):
    """One step's episodes in their groups, each sample's reward and advantage: why the step did (not) teach."""
    run = _run_or_404(run_id)
    path = selectors.step_trajectory_path(run, step)
    scheme = run.config.get("reward", "dense")
    # Runs from before these settings existed left masked episodes out and masked no step timeouts.
    masked_in_baseline = run.config.get("masked_in_baseline", "exclude")
    groups = selectors.step_groups(path, scheme=scheme, group_size=int(run.config.get("group_size") or 1),
                                   masked_in_baseline=masked_in_baseline,
                                   mask_step_timeout_share=float(run.config.get("mask_step_timeout_share", 1.0)))
    # Task ids come from agent-run records: only the run's own tasks become links (an odd id stays plain text).
    known = _task_ids(run)
    for group in groups:
        group["task_known"] = group["task_id"] in known
    steps = list(run.metrics.values_list("step", flat=True))
    position = steps.index(step) if step in steps else -1
    return render(request, "training/runs/training_step.html", {
        "run": run, "step": step, "groups": groups, "scheme": scheme, "masked_in_baseline": masked_in_baseline,
        "flat_groups": sum(group["flat"] for group in groups),
        "previous": steps[position - 1] if position > 0 else None,
        "next": steps[position + 1] if 0 <= position < len(steps) - 1 else None,
    })


@role_required(Role.VIEWER)
def training_step_sample(request, run_id, step, line):
    """One episode of a step (line `line` of its JSONL), shown as a rollout's trajectory is."""
    from training_app.shared import presentation

    run = _run_or_404(run_id)
    records = selectors.step_records(selectors.step_trajectory_path(run, step))
    if not 0 <= line < len(records):
        raise Http404("no such episode in this step")
    record = records[line]
    grade = stored_grade(record.get("grade"))
    return render(request, "training/runs/training_step_sample.html", {
        "run": run, "step": step, "line": line, "trajectory": record, "record": record,
        "task_known": str(record.get("task_id", "")) in _task_ids(run),
        "turns": presentation.turn_views(record), "grade": grade,
        "turn_count": presentation.turn_count(record, run.config.get("max_turns")),
        "ladder": presentation.ladder_view(grade), "rewards": record.get("rewards") or {},
        "pygments_css": presentation.pygments_css(),
    })


@role_required(Role.VIEWER)
def training_run_compare(request):
    """Several runs' curves on one chart each, with the settings that differ between them listed first."""
    try:
        ids = row_ids(request.GET.getlist("runs"), field="runs")
    except ValueError as error:
        return render(request, "400.html", {"reason": str(error), "field": "runs"}, status=400)
    found = {run.id: run for run in TrainingRun.objects.select_related("task_set").defer("result").filter(id__in=ids)}
    runs = [found[run_id] for run_id in ids if run_id in found]
    lines = {run.id: [] for run in runs}
    for row in TrainingMetric.objects.filter(run__in=runs).order_by("step"):
        lines[row.run_id].append(row.metrics)
    labelled = [(f"#{run.id} {run.name}".strip(), lines[run.id]) for run in runs]
    admin = has_role(request.user, Role.ADMIN)
    configs = [training_run_shown_config(run, show_host_paths=admin) | {"task set": run.task_set.name} for run in runs]
    x, smoothing = charts.chart_options(request.GET)
    return render(request, "training/runs/training_run_compare.html", {
        "runs": runs, "differences": charts.config_differences(configs) if len(runs) > 1 else [],
        "missing": [run_id for run_id in ids if run_id not in found],
        "figure_blocks": [(f"{name}-figure", f"{name}-curve", figure)
                          for name, figure in charts.compare_figures(labelled, x=x, smoothing=smoothing).items()],
        "chart_x": x, "chart_smoothing": smoothing, **_chart_choices(), "kept_runs": [("runs", run.id) for run in runs],
    })
