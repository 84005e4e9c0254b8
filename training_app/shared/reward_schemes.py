"""Dense against sparse on a batch's or a campaign's episodes: the engine's comparison (sandmle.rewards.comparison,
stored in the batch summary or the campaign report) as one plotly figure and the rows of a small table, for
templates/training/shared/_reward_schemes.html."""

from __future__ import annotations

import functools
import json


@functools.cache
def _template() -> dict:
    """The studio's chart template resolved to plain JSON once per process: the batch page has a latency budget
    (bench/studio), and building a validated go.Figure on every view cost ~18 ms of it."""
    import plotly.io as pio
    from plotly.io.json import to_json_plotly

    from training_app.runs.charts import TEMPLATE

    return json.loads(to_json_plotly(pio.templates[TEMPLATE]))


def reward_scheme_view(comparison: dict | None) -> dict | None:
    """The figure (episodes by total, one bar trace per scheme) and the table rows; None before any episode ends or
    for a summary written before the comparison existed."""
    schemes = (comparison or {}).get("schemes") or []
    if not schemes:
        return None
    edges = comparison["bin_edges"]
    bins = [f"{low:.1f}–{high:.1f}" for low, high in zip(edges, edges[1:])]
    traces = [{"type": "bar", "name": scheme["name"], "x": bins, "y": comparison["histogram"][scheme["name"]],
               "hovertemplate": "%{y} episodes at %{x}<extra>" + scheme["name"] + "</extra>"} for scheme in schemes]
    layout = {"barmode": "group", "title": {"text": "Episodes by reward total, each scheme on the same episodes"},
              "xaxis": {"title": {"text": "reward total"}}, "yaxis": {"title": {"text": "episodes"}}, "height": 320,
              "margin": {"l": 60, "r": 20, "t": 40, "b": 40}, "legend": {"orientation": "h", "y": -0.3},
              "template": _template()}
    rows = [scheme | {"parts": ", ".join(f"{part} {value:.3f}" for part, value in scheme["components"].items())}
            for scheme in schemes]
    return {"figure": {"data": traces, "layout": layout}, "rows": rows}
