"""The run page's chart of an adaptive run: each lineage's success rate by step, one colour per lineage, with a
marker where a successor replaced its task (the new level written beside it) and the frontier band shaded."""

from __future__ import annotations

from training_app.runs.charts import RUN_COLOURS, _layout


def lineage_figure(*, rates: dict[str, dict[str, list]], level_changes: list[dict], band: list | None) -> dict:
    roots = list(dict.fromkeys(list(rates) + [change["root"] for change in level_changes]))
    data = []
    last_step = 0
    for index, root in enumerate(roots):
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        series = rates.get(root, {"steps": [], "rates": []})
        last_step = max([last_step, *series["steps"]])
        data.append({"type": "scatter", "mode": "lines+markers", "name": root, "legendgroup": root,
                     "x": series["steps"], "y": series["rates"], "line": {"color": colour}})
        changes = [change for change in level_changes if change["root"] == root]
        if changes:
            by_step = dict(zip(series["steps"], series["rates"]))
            data.append({"type": "scatter", "mode": "markers+text", "name": f"{root}: level changes",
                         "legendgroup": root, "showlegend": False, "x": [c["step"] for c in changes],
                         "y": [by_step.get(c["step"], 0.5) for c in changes],
                         "text": [f"level {c['level']}" for c in changes], "textposition": "top center",
                         "marker": {"symbol": "diamond", "size": 12, "color": colour,
                                    "line": {"width": 1, "color": "#222"}},
                         "hovertemplate": "step %{x}: successor at %{text}<extra></extra>"})
            last_step = max([last_step, *(c["step"] or 0 for c in changes)])
    layout = _layout("Success rate of each lineage (◆: a successor took over, at its level)", "success rate",
                     [-0.05, 1.12], last_step=last_step)
    if band:
        layout["shapes"] = [{"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "y0": band[0], "y1": band[1],
                             "fillcolor": "rgba(120, 180, 120, 0.12)", "line": {"width": 0}, "layer": "below"}]
    return {"data": data, "layout": layout}
