"""Pages of evaluation campaigns: launch, progress, the transfer table with its charts, a cell's episodes, each episode
turn by turn, exports."""

from __future__ import annotations

import json

from django.db.models import Min
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role
from sandmle.evaluation.uninformative import ceiling_warning, spread_warning
from sandmle.tasks.grade_report import stored_grade
from sandmle_web.id_params import row_ids
from sandmle_web.paging import bad_page_is_400, paginate
from training_app.campaigns import selectors, services
from training_app.campaigns.forms import CampaignForm
from training_app.campaigns.metric_words import metric_words
from training_app.models import EvalCampaign
from training_app.shared import presentation
from training_app.shared.job_list import JobListPage, task_set_of
from training_app.shared.reward_schemes import reward_scheme_view


class CampaignList(JobListPage):
    form_class = CampaignForm
    template = "training/campaigns/campaign_list.html"
    jobs_name, launching = "campaigns", "campaigns"
    detail_url, detail_id = "campaign-detail", "campaign_id"

    def create(self, form):
        fields = dict(form.cleaned_data)
        return services.campaign_create(task_set=task_set_of(fields), user=self.request.user, **fields)

    def jobs(self):
        # The report (every cell's metrics) is the heavy JSON of a campaign: the list shows none of it.
        return selectors.campaign_list().defer("report").order_by("-created_at", "-id")


campaign_list = CampaignList.as_view()


def _campaign_or_404(campaign_id: int) -> EvalCampaign:
    try:
        return selectors.campaign_get(campaign_id=campaign_id)
    except EvalCampaign.DoesNotExist:
        raise Http404(f"no campaign {campaign_id}")


@role_required(Role.VIEWER)
def campaign_detail(request, campaign_id):
    campaign = _campaign_or_404(campaign_id)
    if request.method == "POST":
        if not campaign.may_be_cancelled_by(request.user):
            return render(request, "403.html",
                          {"reason": "Only the campaign's creator, reviewers and admins may cancel it."}, status=403)
        EvalCampaign.request_cancel(campaign.id, actor=request.user)
        return redirect("campaign-detail", campaign_id=campaign.id)
    metrics = campaign.report.get("metrics", [])
    metric = request.GET.get("metric", "medal_rate")
    if metrics and metric not in metrics:
        raise Http404(f"no metric {metric!r}")
    rows = selectors.transfer_rows(campaign.report, metric)
    # Each cell also opens its first episode turn by turn (one grouped query for the whole table).
    first_episode = {(row["policy"], row["scaffold"]): row["first"] for row in
                     campaign.episodes.values("policy", "scaffold").annotate(first=Min("id")).order_by()}
    for row in rows:
        row["trained_with"] = selectors.trained_with(row["policy"])  # a checkpoint's scaffold, options, feedback
        for cell in row["cells"]:
            cell["first_episode"] = first_episode.get((row["policy"], cell["scaffold"]))
    return render(request, "training/campaigns/campaign_detail.html", {
        "campaign": campaign, "metric": metric, "metrics": [metric_words(name) for name in metrics],
        "metric_words": metric_words(metric), "rows": rows, "scaffolds": campaign.report.get("scaffolds", []),
        "columns": selectors.scaffold_columns(campaign.spec, campaign.report.get("scaffolds", [])),
        "spec_columns": selectors.scaffold_columns(campaign.spec, campaign.spec.get("scaffolds", [])),
        "figures": selectors.transfer_figures(campaign.report, metric) if campaign.report.get("cells") else None,
        "stored": campaign.episodes.count(),
        "schemes": reward_scheme_view(campaign.report.get("reward_schemes")),
        "result_warnings": [warning for warning in (
            ceiling_warning(campaign.report.get("cells") or [], metric),
            spread_warning(campaign.report.get("reward_schemes"), policies=campaign.spec.get("policies") or []))
            if warning],
    })


@role_required(Role.VIEWER)
def campaign_compare(request):
    """Several campaigns cell by cell (policy x scaffold): each one's mean and n, and the change from the first."""
    try:
        ids = row_ids(request.GET.getlist("campaigns"), field="campaigns")
    except ValueError as error:
        return render(request, "400.html", {"reason": str(error), "field": "campaigns"}, status=400)
    found = {campaign.id: campaign for campaign in selectors.campaign_list().filter(id__in=ids)}
    campaigns = [found[campaign_id] for campaign_id in ids if campaign_id in found]
    metrics = list(dict.fromkeys(name for campaign in campaigns for name in campaign.report.get("metrics", [])))
    metric = request.GET.get("metric") or ("medal_rate" if "medal_rate" in metrics or not metrics else metrics[0])
    if metrics and metric not in metrics:
        return render(request, "400.html", {"reason": f"no metric {metric!r}", "field": "metric"}, status=400)
    return render(request, "training/campaigns/campaign_compare.html", {
        "campaigns": campaigns, "metric": metric, "metrics": [metric_words(name) for name in metrics],
        "metric_words": metric_words(metric), "rows": selectors.compare_cells(campaigns, metric),
        "missing": [campaign_id for campaign_id in ids if campaign_id not in found],
    })


@role_required(Role.VIEWER)
@bad_page_is_400
def campaign_episodes(request, campaign_id):
    """The episodes of one cell (or of the whole campaign), each with its grade."""
    campaign = _campaign_or_404(campaign_id)
    policy, scaffold = request.GET.get("policy", ""), request.GET.get("scaffold", "")
    page = paginate(request, selectors.episode_list(campaign=campaign, policy=policy, scaffold=scaffold))
    return render(request, "training/campaigns/campaign_episodes.html", {
        "campaign": campaign, "policy": policy, "scaffold": scaffold, "episodes": page, "page": page})


@role_required(Role.VIEWER)
def campaign_report_export(request, campaign_id, fmt):
    from sandmle.evaluation.transfer import report_csv

    campaign = _campaign_or_404(campaign_id)
    if fmt not in ("csv", "json"):
        raise Http404("the report comes as .csv or .json")
    if not campaign.report.get("cells"):
        raise Http404("this campaign has no report yet")
    if fmt == "json":
        response = JsonResponse(campaign.report, json_dumps_params={"indent": 2})
    else:
        response = HttpResponse(report_csv(campaign.report), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.id}-report.{fmt}"'
    return response


def _episode_or_404(campaign: EvalCampaign, episode_id: int):
    episode = campaign.episodes.filter(id=episode_id).first()
    if episode is None:
        raise Http404("no such episode in this campaign")
    return episode


@role_required(Role.VIEWER)
def campaign_episode_detail(request, campaign_id, episode_id):
    """One episode turn by turn, drawn by the same partial as a rollout trajectory; its cell's other episodes beside it.

    The record is what the engine wrote: the agent's turns (sandbox output of public files only) and the grade report.
    Nothing of private/ beyond the thresholds every viewer sees is in it, so the page needs no role above viewer.
    """
    campaign = _campaign_or_404(campaign_id)
    episode = _episode_or_404(campaign, episode_id)
    trajectory = episode.record.get("trajectory") or {}
    grade = stored_grade(episode.record.get("report") or trajectory.get("grade"))
    cell = list(selectors.episode_list(campaign=campaign, policy=episode.policy, scaffold=episode.scaffold)
                .values_list("id", flat=True))
    position = cell.index(episode.id)
    return render(request, "training/campaigns/campaign_episode_detail.html", {
        "campaign": campaign, "episode": episode, "trajectory": trajectory, "grade": grade,
        "turns": presentation.turn_views(trajectory), "turn_count": presentation.turn_count(
            trajectory, campaign.spec.get("max_turns")), "ladder": presentation.ladder_view(grade),
        "rewards": trajectory.get("rewards") or {}, "pygments_css": presentation.pygments_css(),
        "position": position + 1, "cell_size": len(cell),
        "previous_id": cell[position - 1] if position > 0 else None,
        "next_id": cell[position + 1] if position + 1 < len(cell) else None,
    })


@role_required(Role.VIEWER)
def campaign_episode_record(request, campaign_id, episode_id):
    episode = _episode_or_404(_campaign_or_404(campaign_id), episode_id)
    response = HttpResponse(json.dumps(episode.record, indent=2, sort_keys=True), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign_id}-episode-{episode.id}.json"'
    return response
