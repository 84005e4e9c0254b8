"""Reads of latency studies: rows, the tasks a study can start from, and the study shaped for its page and charts."""

from __future__ import annotations

import json
import statistics

from django.db.models import QuerySet

from sandmle_web.charts import TEMPLATE
from tasks_app.models import Seed, SynthesizedTask
from training_app.models import LatencyStudy

FULL_COLOUR, SYNTH_COLOUR = "#e0892f", "#2f6fde"  # tasks_app.tasks.charts' test and train colours


def latency_study_list() -> QuerySet[LatencyStudy]:
    return LatencyStudy.objects.select_related("task", "seed", "created_by")


def latency_study_get(*, study_id: int) -> LatencyStudy:
    return LatencyStudy.objects.select_related("task", "seed", "cancel_requested_by").get(id=study_id)


def latency_task_ids(*, limit: int = 500) -> list[str]:
    """Synthesized tasks with a spec (imported ones have none to materialize again), newest first."""
    return list(SynthesizedTask.objects.exclude(spec={}).order_by("-created_at")
                .values_list("task_id", flat=True)[:limit])


def latency_seed_names() -> list[str]:
    return list(Seed.objects.order_by("name").values_list("name", flat=True))


def seed_rows(result: dict) -> list[dict]:
    """Per seed: each size's median step time and the ratio, for the page's table."""
    return [{"seed": run["seed"], "full_s": statistics.median(run["full"].values()),
             "synth_s": statistics.median(run["synth"].values()), "ratio": run["ratio"],
             "steps": [{"name": name, "full_s": run["full"][name], "synth_s": run["synth"].get(name)}
                       for name in run["full"]]}
            for run in result.get("runs", [])]


def latency_figures(result: dict) -> dict | None:
    """The per-seed distribution of step times at both sizes (box with every step as a point, log scale) and the
    per-seed ratios beside the ratio of medians, as plotly JSON for static/js/figures.js."""
    import plotly.graph_objects as go
    import plotly.io as pio

    runs = result.get("runs", [])
    if not runs:
        return None
    layout = dict(height=340, margin=dict(l=60, r=20, t=40, b=40), template=TEMPLATE)
    steps = go.Figure()
    for size, label, colour, rows in (("full", f"full scale ({result['full_rows']:,} rows)", FULL_COLOUR,
                                       result["full_rows"]),
                                      ("synth", f"synthesized ({result['synth_rows']} rows)", SYNTH_COLOUR,
                                       result["synth_rows"])):
        seeds = [f"seed {run['seed']}" for run in runs for _ in run[size]]
        times = [seconds for run in runs for seconds in run[size].values()]
        names = [name for run in runs for name in run[size]]
        steps.add_trace(go.Box(x=seeds, y=times, name=label, marker_color=colour, boxpoints="all", jitter=0.4,
                               pointpos=0, text=names, hovertemplate="%{text}: %{y:.3f} s<extra>" + label + "</extra>"))
    steps.update_layout(title=dict(text="Step wall time per seed", font=dict(size=13)), boxmode="group",
                        yaxis=dict(title="seconds (log)", type="log"), legend=dict(orientation="h", y=-0.18),
                        **layout)
    ratios = go.Figure(go.Bar(x=[f"seed {run['seed']}" for run in runs], y=[run["ratio"] for run in runs],
                              marker_color=FULL_COLOUR, name="median full / median synthesized",
                              hovertemplate="%{y:.1f}×<extra></extra>"))
    if result.get("speedup"):
        ratios.add_hline(y=result["speedup"], line_dash="dash",
                         annotation_text=f"ratio of medians {result['speedup']:.1f}×")
    ratios.update_layout(title=dict(text="Per-step speed-up per seed", font=dict(size=13)),
                         yaxis=dict(title="full / synthesized", rangemode="tozero"), **layout)
    return {"steps": json.loads(pio.to_json(steps, validate=False)),
            "ratios": json.loads(pio.to_json(ratios, validate=False))}
