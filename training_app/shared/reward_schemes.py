"""Dense against sparse on a batch's or a campaign's episodes: the engine's comparison (sandmle.evaluation.reward_schemes,
stored in the batch summary or the campaign report) as one plotly figure and the rows of a small table, for
templates/training/_reward_schemes.html."""

from __future__ import annotations

import json


def reward_scheme_view(comparison: dict | None) -> dict | None:
    """The figure (episodes by total, one bar trace per scheme) and the table rows; None before any episode ends or
    for a summary written before the comparison existed."""
    import plotly.graph_objects as go

    from training_app.runs.figures import TEMPLATE

    schemes = (comparison or {}).get("schemes") or []
    if not schemes:
        return None
    edges = comparison["bin_edges"]
    bins = [f"{low:.1f}–{high:.1f}" for low, high in zip(edges, edges[1:])]
    figure = go.Figure([go.Bar(name=scheme["name"], x=bins, y=comparison["histogram"][scheme["name"]],
                               hovertemplate="%{y} episodes at %{x}<extra>" + scheme["name"] + "</extra>")
                        for scheme in schemes])
    figure.update_layout(barmode="group", title={"text": "Episodes by reward total, each scheme on the same episodes"},
                         xaxis={"title": {"text": "reward total"}}, yaxis={"title": {"text": "episodes"}},
                         height=320, margin={"l": 60, "r": 20, "t": 40, "b": 40}, template=TEMPLATE,
                         legend={"orientation": "h", "y": -0.3})
    rows = [scheme | {"parts": ", ".join(f"{part} {value:.3f}" for part, value in scheme["components"].items())}
            for scheme in schemes]
    return {"figure": json.loads(figure.to_json()), "rows": rows}
