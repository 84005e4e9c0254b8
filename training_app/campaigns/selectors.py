"""Reads of evaluation campaigns: rows, episodes by cell, and the report shaped for the page and its charts."""

from __future__ import annotations

import json

from django.db.models import QuerySet

from training_app.models import CampaignEpisode, EvalCampaign


def campaign_list() -> QuerySet[EvalCampaign]:
    return EvalCampaign.objects.select_related("task_set", "created_by")


def campaign_get(*, campaign_id: int) -> EvalCampaign:
    return EvalCampaign.objects.select_related("task_set").get(id=campaign_id)


def episode_list(*, campaign: EvalCampaign, policy: str = "", scaffold: str = "") -> QuerySet[CampaignEpisode]:
    episodes = campaign.episodes.defer("record")
    if policy:
        episodes = episodes.filter(policy=policy)
    return episodes.filter(scaffold=scaffold) if scaffold else episodes


def transfer_rows(report: dict, metric: str) -> list[dict]:
    """One row per policy, one cell per scaffold: value, SEM, relative change (None where no episode ran)."""
    index = {(cell["policy"], cell["scaffold"]): cell for cell in report.get("cells", [])}
    rows = []
    for policy in report.get("policies", []):
        cells = []
        for scaffold in report.get("scaffolds", []):
            cell = index.get((policy, scaffold))
            stats = (cell or {}).get("metrics", {}).get(metric) or {}
            cells.append({"scaffold": scaffold, "n": (cell or {}).get("n", 0), "mean": stats.get("mean"),
                          "sem": stats.get("sem"), "relative": ((cell or {}).get("relative") or {}).get(metric),
                          "best_of_k": (cell or {}).get("best_of_k", [])})
        rows.append({"policy": policy, "is_baseline": policy == report.get("baseline"), "cells": cells})
    return rows


def transfer_figures(report: dict, metric: str) -> dict:
    """The heatmap and the grouped bars with SEM error bars, as plotly JSON for static/js/figures.js."""
    import plotly.graph_objects as go

    from sandmle_web.charts import TEMPLATE
    from training_app.shared.presentation import SCAFFOLD_LABELS

    rows = transfer_rows(report, metric)
    scaffolds = [SCAFFOLD_LABELS.get(name, name) for name in report.get("scaffolds", [])]
    heatmap = go.Figure(go.Heatmap(
        z=[[cell["mean"] for cell in row["cells"]] for row in rows], x=scaffolds, y=[row["policy"] for row in rows],
        colorscale="Viridis", zmin=0, zmax=1 if metric.endswith("_rate") else None, texttemplate="%{z:.2f}"))
    heatmap.update_layout(title=f"{metric} by policy and scaffold", height=120 + 60 * len(rows),
                          margin={"l": 160, "r": 20, "t": 40, "b": 40}, template=TEMPLATE)
    # One seed has no spread to show: no error bar (None), not a bar of zero; with no cell over two seeds or more,
    # no error bars at all (plotly still draws an empty cap) and a title that says so.
    spread = any(cell["n"] > 1 for row in rows for cell in row["cells"])
    bars = go.Figure([go.Bar(name=row["policy"], x=scaffolds, y=[cell["mean"] for cell in row["cells"]],
                             error_y={"type": "data", "visible": spread,
                                      "array": [cell["sem"] if cell["n"] > 1 else None for cell in row["cells"]]})
                      for row in rows])
    bars.update_layout(barmode="group", title=f"{metric}, mean ± SEM over seeds" if spread else f"{metric} (n=1)",
                       height=360,
                       margin={"l": 60, "r": 20, "t": 40, "b": 40}, template=TEMPLATE)
    return {"heatmap": json.loads(heatmap.to_json()), "bars": json.loads(bars.to_json())}


def scaffold_columns(spec: dict, scaffolds: list[str]) -> list[dict]:
    """Each column's scaffold with the options it ran under, as "key=value" text ("defaults" when none)."""
    options = spec.get("scaffold_options") or {}
    return [{"scaffold": name, "options": ", ".join(f"{key}={value}" for key, value in sorted(options.get(name, {}).items()))
             or "defaults"} for name in scaffolds]


def compare_cells(campaigns: list[EvalCampaign], metric: str) -> list[dict]:
    """Campaigns side by side cell by cell: for each (policy, scaffold) any of them ran, each campaign's mean and n
    of `metric` (None where it did not run the cell) and the change from the first campaign to each other."""
    keys: dict[tuple[str, str], None] = {}
    values = []
    for campaign in campaigns:
        cells = {(cell["policy"], cell["scaffold"]): cell for cell in campaign.report.get("cells", [])}
        keys.update(dict.fromkeys(cells))
        values.append(cells)
    rows = []
    for policy, scaffold in keys:
        entries = []
        for cells in values:
            cell = cells.get((policy, scaffold))
            stats = ((cell or {}).get("metrics") or {}).get(metric) or {}
            entries.append(None if cell is None else {"mean": stats.get("mean"), "n": cell.get("n", 0),
                                                      "sem": stats.get("sem")})
        first = entries[0]["mean"] if entries and entries[0] else None
        for entry in entries[1:]:
            if entry is not None:
                entry["delta"] = None if first is None or entry["mean"] is None else entry["mean"] - first
        rows.append({"policy": policy, "scaffold": scaffold, "entries": entries})
    return rows


def trained_with(policy: str) -> dict | None:
    """What a checkpoint policy (hf:PATH) was trained with, from its folder's record: {"text": "react dialect=sandmle,
    feedback score_answers", "saw_test_scores": bool}; None for other policies and unrecorded checkpoints."""
    from sandmle.rl.provenance import read_provenance
    from training_app.shared.presentation import saw_test_scores

    if not str(policy).startswith("hf:"):
        return None
    found = read_provenance(policy)
    if found is None:
        return None
    options = " ".join(f"{key}={value}" for key, value in sorted((found.get("scaffold_options") or {}).items()))
    text = " ".join(part for part in (str(found.get("scaffold") or "?"), options) if part)
    return {"text": f"{text}, feedback {found.get('feedback') or '-'}", "saw_test_scores": saw_test_scores(found)}
