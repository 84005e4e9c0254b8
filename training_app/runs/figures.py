"""Plotly figures of training runs: one run's curves (what a researcher checks when GRPO does not learn) and several
runs' curves overlaid for a comparison; only the keys the metric lines carry are drawn."""

from __future__ import annotations

from studio.charts import TEMPLATE  # one look for every chart of the studio

# The rollout engine's batching figures (#23); drawn when the lines carry them.
GENERATION_KEYS = ("generate_calls", "mean_batch_size", "tokens_per_s")
TIME_KEYS = ("generation_s", "sandbox_s", "wait_s", "update_s")
# (figure name, title, y label, keys, y range): the curves of one run, and the ones compare overlays.
CURVES = (
    ("reward", "Reward (mean over episodes)", "reward", ("reward_mean",), None),
    ("rates", "Medal and valid rates", "share", ("medal_rate", "valid_rate"), [-0.02, 1.02]),
    ("signal", "Groups with no reward spread (no learning signal)", "share of groups", ("zero_std_group_share",),
     [-0.02, 1.02]),
    ("loss", "Loss", "loss", ("loss",), None),
    ("grad_norm", "Gradient norm", "norm", ("grad_norm",), None),
    ("tokens", "Tokens trained on", "tokens", ("tokens", "sequence_tokens"), None),
    ("episodes", "Truncated and masked episodes", "episodes", ("truncated_episodes", "masked_episodes"), None),
    ("generation", "Rollout engine batching", "value", GENERATION_KEYS, None),
)


# Up to this many steps, one tick per step: plotly's automatic ticks on a short run fall on halves, which the integer
# format then prints twice ("1 1 2 2"); plotly has no "smallest tick step" setting to ask for instead.
ONE_TICK_PER_STEP_UP_TO = 12


def _layout(title: str, y: str, y_range=None, *, last_step: int = 0) -> dict:
    # Steps are whole numbers: integer ticks, never 1.5.
    yaxis = {"title": {"text": y}} | ({"range": y_range} if y_range else {})
    xaxis = {"title": {"text": "step"}, "tickformat": "d"}
    if last_step <= ONE_TICK_PER_STEP_UP_TO:
        xaxis |= {"tickmode": "linear", "tick0": 0, "dtick": 1}
    return {"title": {"text": title}, "xaxis": xaxis, "yaxis": yaxis,
            "height": 300, "margin": {"t": 40, "b": 40, "l": 60, "r": 10}, "template": TEMPLATE,
            "legend": {"orientation": "h", "y": -0.25}}


def _has(lines: list[dict], key: str) -> bool:
    return any(line.get(key) is not None for line in lines)


def _json(figure) -> dict:
    # Through plotly's own encoder (it resolves the named template), then plain JSON for json_script.
    import json

    return json.loads(figure.to_json())


def metric_figures(lines: list[dict]) -> dict:
    """One run's figures (as JSON dicts), for the keys its lines carry: reward mean ± std, rates, the share of
    zero-spread groups, loss, gradient norm, tokens, truncated/masked episodes, terminations, batching, time split."""
    import plotly.graph_objects as go

    steps = [line["step"] for line in lines]
    figures = {}
    for name, title, y, keys, y_range in CURVES:
        keys = [key for key in keys if _has(lines, key)]
        if not keys:
            continue
        traces = []
        for key in keys:
            error = ({"type": "data", "array": [line.get("reward_std") for line in lines], "visible": True}
                     if key == "reward_mean" and _has(lines, "reward_std") else None)
            traces.append(go.Scatter(x=steps, y=[line.get(key) for line in lines], mode="lines+markers",
                                     name=key.replace("_", " "), error_y=error))
        figures[name] = go.Figure(traces, layout=_layout(title + (" ± std" if name == "reward" else ""), y, y_range,
                                                                   last_step=max(steps, default=0)))
    parts = reward_parts_figure(lines, steps)
    if parts is not None:  # right under the total it splits
        figures = {name: figure for name, figure in figures.items() if name == "reward"} | {
            "reward_parts": parts} | figures
    ends = sorted({end for line in lines for end in (line.get("terminations") or {})})
    if ends:
        figures["terminations"] = go.Figure(
            [go.Bar(x=steps, y=[(line.get("terminations") or {}).get(end, 0) for line in lines], name=end)
             for end in ends],
            layout=_layout("How episodes ended", "episodes", last_step=max(steps)) | {"barmode": "stack"})
    times = [key for key in TIME_KEYS if _has(lines, key)]
    if times:
        figures["timing"] = go.Figure([go.Bar(x=steps, y=[line.get(key) for line in lines],
                                              name=key.removesuffix("_s")) for key in times],
                                      layout=_layout("Step time split", "seconds", last_step=max(steps)) | {"barmode": "stack"})
    return {name: _json(figure) for name, figure in figures.items()}


def reward_parts_figure(lines: list[dict], steps: list[int]):
    """Each reward component's step mean, stacked (they sum to the mean reward), with the total dotted on top: whether
    a run learned the format share or the milestones."""
    import plotly.graph_objects as go

    parts = list(dict.fromkeys(part for line in lines for part in (line.get("reward_components") or {})))
    if not parts:
        return None
    traces = [go.Scatter(x=steps, y=[(line.get("reward_components") or {}).get(part, 0.0) for line in lines],
                         name=part, mode="lines", stackgroup="parts") for part in parts]
    traces.append(go.Scatter(x=steps, y=[line.get("reward_mean") for line in lines], name="total",
                             mode="lines+markers", line={"dash": "dot", "color": "#222222"}))
    return go.Figure(traces, layout=_layout("Reward by component (stacked, summing to the mean)", "reward",
                                            last_step=max(steps, default=0)))


def zero_spread_steps(lines: list[dict]) -> list[int]:
    """Steps where every group's rewards were equal: GRPO's advantages were all zero, so the step taught nothing."""
    return [line["step"] for line in lines if (line.get("zero_std_group_share") or 0) >= 1.0 - 1e-9]


def compare_figures(runs: list[tuple[str, list[dict]]]) -> dict:
    """Each curve of CURVES with one trace per run (label, lines), for the keys at least one run carries."""
    import plotly.graph_objects as go

    figures = {}
    last_step = max((line["step"] for _, lines in runs for line in lines), default=0)
    for name, title, y, keys, y_range in CURVES:
        traces = [go.Scatter(x=[line["step"] for line in lines], y=[line.get(key) for line in lines],
                             mode="lines+markers", name=label if len(keys) == 1 else f"{label} · {key}")
                  for key in keys for label, lines in runs if _has(lines, key)]
        if traces:
            figures[name] = _json(go.Figure(traces, layout=_layout(title, y, y_range, last_step=last_step)))
    return figures


def config_differences(configs: list[dict]) -> list[tuple[str, list]]:
    """(key, the value in each run) for every setting that is not the same in all runs; paths of outputs left out."""
    keys = sorted({key for config in configs for key in config} - {"output_dir"})
    rows = []
    for key in keys:
        values = [config.get(key) for config in configs]
        if any(value != values[0] for value in values[1:]):
            rows.append((key, values))
    return rows
