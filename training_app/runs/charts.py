"""Plotly figures of training runs: one run's curves (what a researcher checks when GRPO does not learn) and several
runs' curves overlaid for a comparison; only the keys the metric lines carry are drawn."""

from __future__ import annotations

from plotly.colors import qualitative

from sandmle_web.charts import TEMPLATE  # one look for every chart of the studio

# The rollout engine's batching figures (#23); drawn when the lines carry them. Calls per step and replies per call
# share a chart on two axes; throughput has its own (one quantity per axis).
GENERATION_KEYS = ("generate_calls", "mean_batch_size")
SECONDARY = {"mean_batch_size": "replies per call", "level_mean": "mean level", "rollout_wait_s": "wait (s)"}
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
    ("generation", "Rollout engine batching: calls per step (left), replies per call (right)", "generate calls",
     GENERATION_KEYS, None),
    ("throughput", "Generation throughput (model policies only)", "tokens / s", ("tokens_per_s",), None),
    ("frontier", "Adaptive environments: drawn tasks inside the band (left), mean level (right)", "share in band",
     ("frontier_share", "level_mean"), [-0.02, 1.02]),
    # The sampled distributions where replies open and where they close (temperature_schedule annealed: hot, then cool).
    ("reply_temperature", "Sampling temperature where replies open and close", "temperature",
     ("reply_temperature_first", "reply_temperature_last"), None),
    ("reply_entropy", "Entropy where replies open and close", "nats", ("reply_entropy_first", "reply_entropy_last"),
     None),
    ("staleness", "Async rollouts: largest lag of a trained sample (left), the trainer's wait for them (right)",
     "versions", ("staleness_max", "rollout_wait_s"), None),
)
X_AXES = {"step": "step", "wall": "wall time (s)"}
SMOOTHING = (0.0, 0.6, 0.9)
# One colour per run on every chart of a comparison (plotly's own qualitative palette); a chart's keys differ by dash.
RUN_COLOURS = qualitative.Plotly
DASHES = ("solid", "dot", "dash", "dashdot")


# Up to this many steps, one tick per step: plotly's automatic ticks on a short run fall on halves, which the integer
# format then prints twice ("1 1 2 2"); plotly has no "smallest tick step" setting to ask for instead.
ONE_TICK_PER_STEP_UP_TO = 12


def _layout(title: str, y: str, y_range=None, *, last_step: int = 0, x: str = "step") -> dict:
    yaxis = {"title": {"text": y}} | ({"range": y_range} if y_range else {})
    xaxis = {"title": {"text": X_AXES[x]}}
    if x == "step":  # steps are whole numbers: integer ticks, never 1.5
        xaxis["tickformat"] = "d"
        if last_step <= ONE_TICK_PER_STEP_UP_TO:
            xaxis |= {"tickmode": "linear", "tick0": 0, "dtick": 1}
    # The legend sits above the plot, under the title: plotly pushes the top margin down for as many rows as it wraps
    # to on a narrow chart, so no entry reaches the x axis title or the curves (#53). Its blank heading keeps the
    # title's row, which plotly's margin would otherwise give to the legend's first row.
    legend = {"title": {"text": "\u00a0", "side": "top", "font": {"size": 13}}, "orientation": "h",
              "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}
    return {"title": {"text": title, "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 6}},
            "xaxis": xaxis, "yaxis": yaxis, "height": 320, "margin": {"t": 10, "b": 45, "l": 60, "r": 10},
            "template": TEMPLATE, "showlegend": True, "legend": legend}


def x_values(lines: list[dict], x: str = "step") -> list[float]:
    """Each line's step, or the run's wall time at its end (seconds: the steps' step_s summed)."""
    if x == "step":
        return [line["step"] for line in lines]
    elapsed, values = 0.0, []
    for line in lines:
        elapsed += float(line.get("step_s") or 0.0)
        values.append(round(elapsed, 3))
    return values


def smoothed(values: list, weight: float) -> list:
    """TensorBoard's debiased exponential moving average (weight 0: the values); a missing value stays missing."""
    if not weight:
        return list(values)
    result, average, seen = [], 0.0, 0
    for value in values:
        if value is None:
            result.append(None)
            continue
        seen += 1
        average = weight * average + (1 - weight) * value
        result.append(average / (1 - weight ** seen))
    return result


def _curve(x: list, y: list, *, name: str, weight: float, colour: str | None = None, dash: str = "solid",
           error=None, yaxis: str = "y") -> list:
    """A metric's trace: smoothed when asked, with the raw points faint behind it in the same colour."""
    import plotly.graph_objects as go

    line = {"dash": dash} | ({"color": colour} if colour else {})
    traces = [go.Scatter(x=x, y=smoothed(y, weight), mode="lines" if weight else "lines+markers", name=name,
                         line=line, error_y=None if weight else error, yaxis=yaxis, legendgroup=name)]
    if weight:
        traces.append(go.Scatter(x=x, y=y, mode="markers", name=f"{name} (raw)", showlegend=False, opacity=0.3,
                                 marker={"color": colour} if colour else None, yaxis=yaxis, legendgroup=name))
    return traces


def _has(lines: list[dict], key: str) -> bool:
    return any(line.get(key) is not None for line in lines)


def _json(figure) -> dict:
    # Through plotly's own encoder (it resolves the named template), then plain JSON for json_script.
    import json

    return json.loads(figure.to_json())


def metric_figures(lines: list[dict], *, x: str = "step", smoothing: float = 0.0) -> dict:
    """One run's figures (as JSON dicts), for the keys its lines carry: reward mean ± std, rates, the share of
    zero-spread groups, loss, gradient norm, tokens, truncated/masked episodes, terminations, batching, time split;
    over steps or wall time, each curve smoothed by `smoothing` (an exponential moving average's weight)."""
    import plotly.graph_objects as go

    steps = x_values(lines, x)
    last_step = max((line["step"] for line in lines), default=0)
    figures = {}
    for name, title, y, keys, y_range in CURVES:
        keys = [key for key in keys if _has(lines, key)]
        if not keys:
            continue
        traces = []
        for key in keys:
            error = ({"type": "data", "array": [line.get("reward_std") for line in lines], "visible": True}
                     if key == "reward_mean" and _has(lines, "reward_std") else None)
            traces += _curve(steps, [line.get(key) for line in lines], name=key.replace("_", " "), weight=smoothing,
                             error=error, yaxis="y2" if key in SECONDARY else "y")
        layout = _layout(title + (" ± std" if name == "reward" and not smoothing else ""), y, y_range,
                         last_step=last_step, x=x)
        layout |= _secondary(keys)
        figures[name] = go.Figure(traces, layout=layout)
    splits = {f"{prefix}reward_parts": reward_parts_figure(lines, x=x, prefix=prefix, title=title)
              for prefix, title in PARTS_CHARTS}
    # Right under the total they split, the evaluation's beside the steps'.
    figures = {name: figure for name, figure in figures.items() if name == "reward"} | {
        name: figure for name, figure in splits.items() if figure is not None} | figures
    ends = sorted({end for line in lines for end in (line.get("terminations") or {})})
    if ends:
        figures["terminations"] = go.Figure(
            [go.Bar(x=steps, y=[(line.get("terminations") or {}).get(end, 0) for line in lines], name=end)
             for end in ends],
            layout=_layout("How episodes ended", "episodes", last_step=last_step, x=x) | {"barmode": "stack"})
    times = [key for key in TIME_KEYS if _has(lines, key)]
    if times:
        figures["timing"] = go.Figure([go.Bar(x=steps, y=[line.get(key) for line in lines],
                                              name=key.removesuffix("_s")) for key in times],
                                      layout=_layout("Step time split", "seconds", last_step=last_step, x=x)
                                      | {"barmode": "stack"})
    return {name: _json(figure) for name, figure in figures.items()}


def _secondary(keys: list[str]) -> dict:
    """The right-hand axis of a chart whose second quantity is plotted against it."""
    titles = [SECONDARY[key] for key in keys if key in SECONDARY]
    return {"yaxis2": {"title": {"text": titles[0]}, "overlaying": "y", "side": "right", "showgrid": False},
            "margin": {"t": 10, "b": 45, "l": 60, "r": 60}} if titles else {}


# (prefix of the line's keys, title): the training steps' reward split, and the held-out evaluation's beside it.
PARTS_CHARTS = (("", "Reward by component (stacked, summing to the mean)"),
                ("eval_", "Evaluation reward by component (held-out tasks, stacked)"))


def _parts(line: dict, key: str) -> dict:
    parts = line.get(key)
    return parts if isinstance(parts, dict) else {}


def reward_parts_figure(lines: list[dict], *, x: str = "step", prefix: str = "", title: str = PARTS_CHARTS[0][1]):
    """Each reward component's mean, stacked (they sum to the mean reward), with the total dotted on top: whether
    a run learned the format share or the milestones; prefix "eval_" draws the steps that evaluated."""
    import plotly.graph_objects as go

    key = f"{prefix}reward_components"
    points = [(x_value, line) for x_value, line in zip(x_values(lines, x), lines) if _parts(line, key)]
    parts = list(dict.fromkeys(part for _, line in points for part in _parts(line, key)))
    if not parts:
        return None
    xs = [x_value for x_value, _ in points]
    traces = [go.Scatter(x=xs, y=[_parts(line, key).get(part, 0.0) for _, line in points],
                         name=part, mode="lines", stackgroup="parts") for part in parts]
    traces.append(go.Scatter(x=xs, y=[line.get(f"{prefix}reward_mean") for _, line in points], name="total",
                             mode="lines+markers", line={"dash": "dot", "color": "#222222"}))
    return go.Figure(traces, layout=_layout(title, "reward",
                                            last_step=max((line["step"] for line in lines), default=0), x=x))


def zero_spread_steps(lines: list[dict]) -> list[int]:
    """Steps where every group's rewards were equal: GRPO's advantages were all zero, so the step taught nothing."""
    return [line["step"] for line in lines if (line.get("zero_std_group_share") or 0) >= 1.0 - 1e-9]


def compare_figures(runs: list[tuple[str, list[dict]]], *, x: str = "step", smoothing: float = 0.0) -> dict:
    """Each curve of CURVES with one trace per run (label, lines), for the keys at least one run carries; a run keeps
    its colour on every chart, a chart's second key is dotted."""
    import plotly.graph_objects as go

    figures = {}
    last_step = max((line["step"] for _, lines in runs for line in lines), default=0)
    for name, title, y, keys, y_range in CURVES:
        traces = []
        for number, (label, lines) in enumerate(runs):
            for index, key in enumerate(keys):
                if _has(lines, key):
                    traces += _curve(x_values(lines, x), [line.get(key) for line in lines],
                                     name=label if len(keys) == 1 else f"{label} · {key}", weight=smoothing,
                                     colour=RUN_COLOURS[number % len(RUN_COLOURS)], dash=DASHES[index % len(DASHES)],
                                     yaxis="y2" if key in SECONDARY else "y")
        if traces:
            layout = _layout(title, y, y_range, last_step=last_step, x=x) | _secondary(
                [key for key in keys if any(_has(lines, key) for _, lines in runs)])
            figures[name] = _json(go.Figure(traces, layout=layout))
    return figures


def chart_options(query) -> tuple[str, float]:
    """(x axis, smoothing) from a page's query (?x=wall&smooth=0.6); anything else falls back to steps, unsmoothed."""
    x = query.get("x") if query.get("x") in X_AXES else "step"
    try:
        smoothing = float(query.get("smooth") or 0.0)
    except ValueError:
        smoothing = 0.0
    return x, smoothing if smoothing in SMOOTHING else 0.0


def config_differences(configs: list[dict]) -> list[tuple[str, list]]:
    """(key, the value in each run) for every setting that is not the same in all runs; paths of outputs left out."""
    keys = sorted({key for config in configs for key in config} - {"output_dir"})
    rows = []
    for key in keys:
        values = [config.get(key) for config in configs]
        if any(value != values[0] for value in values[1:]):
            rows.append((key, values))
    return rows
