"""The run and compare pages' charts: one quantity per axis, one colour per run on every chart, smoothing and a
step or wall-time x axis chosen on the page (and kept by the metrics the run page polls)."""

from __future__ import annotations

import pytest

from tests.page_figures import page_figure
from tests.stored_runs import two_runs  # noqa: F401 (a fixture)
from training_app.runs.charts import compare_figures, metric_figures, smoothed, x_values

LINES = [{"step": step, "reward_mean": reward, "loss": 0.1, "step_s": 2.0 * step, "generate_calls": 2,
          "mean_batch_size": 4.0, "tokens_per_s": 800.0} for step, reward in ((1, 0.2), (2, 0.6), (3, 0.4))]


def test_batching_puts_each_quantity_on_its_own_axis_and_throughput_on_its_own_chart():
    figures = metric_figures(LINES)
    generation = figures["generation"]
    axes = {trace["name"]: trace.get("yaxis", "y") for trace in generation["data"]}
    assert axes == {"generate calls": "y", "mean batch size": "y2"}
    assert generation["layout"]["yaxis2"]["title"]["text"] == "replies per call"
    assert generation["layout"]["yaxis2"]["overlaying"] == "y" and generation["layout"]["yaxis2"]["side"] == "right"
    assert [trace["name"] for trace in figures["throughput"]["data"]] == ["tokens per s"]
    assert "throughput" not in metric_figures([{k: v for k, v in line.items() if k != "tokens_per_s"} for line in LINES])


def test_smoothing_is_tensorboards_debiased_average_with_the_raw_points_behind():
    assert smoothed([0.2, 0.6, None, 0.4], 0.0) == [0.2, 0.6, None, 0.4]
    values = smoothed([0.2, 0.6, 0.4], 0.6)
    assert values[0] == pytest.approx(0.2)  # debiased: the first point is itself
    assert values[1] == pytest.approx((0.6 * 0.4 * 0.2 + 0.4 * 0.6) / (1 - 0.36))
    reward = metric_figures(LINES, smoothing=0.6)["reward"]["data"]
    assert [trace["name"] for trace in reward] == ["reward mean", "reward mean (raw)"]
    assert reward[0]["y"] == pytest.approx(values) and reward[1]["y"] == [0.2, 0.6, 0.4]
    assert reward[1]["showlegend"] is False and reward[1]["opacity"] == 0.3


def test_wall_time_x_axis_sums_the_steps_seconds():
    assert x_values(LINES, "wall") == [2.0, 6.0, 12.0]
    figure = metric_figures(LINES, x="wall")["loss"]
    assert figure["data"][0]["x"] == [2.0, 6.0, 12.0]
    assert figure["layout"]["xaxis"]["title"]["text"] == "wall time (s)" and "dtick" not in figure["layout"]["xaxis"]


def test_compare_gives_each_run_one_colour_on_every_chart():
    other = [line | {"reward_mean": 0.1, "loss": 0.3} for line in LINES]
    figures = compare_figures([("#1 a", LINES), ("#2 b", other)])
    colours: dict[str, set] = {}
    for figure in figures.values():
        for trace in figure["data"]:
            colours.setdefault(trace["name"].split(" · ")[0], set()).add(trace["line"]["color"])
    assert set(colours) == {"#1 a", "#2 b"} and all(len(found) == 1 for found in colours.values())
    assert colours["#1 a"] != colours["#2 b"]
    dashes = {trace["name"]: trace["line"]["dash"] for trace in figures["generation"]["data"]}
    assert dashes["#1 a · generate_calls"] == "solid" and dashes["#1 a · mean_batch_size"] == "dot"


def test_pages_take_the_x_axis_and_smoothing_and_keep_them_in_the_poll(client_for, two_runs):
    sparse, dense = two_runs
    viewer = client_for("viewer")
    html = viewer.get(f"/training/{dense.id}/?x=wall&smooth=0.9").content.decode()
    assert 'class="chart-grid"' in html and '<option value="wall" selected>' in html
    assert f'data-metrics-url="/training/{dense.id}/metrics.json?x=wall&amp;smooth=0.9"' in html
    assert page_figure(html, "loss-figure")["layout"]["xaxis"]["title"]["text"] == "wall time (s)"
    polled = viewer.get(f"/training/{dense.id}/metrics.json?x=wall&smooth=0.9").json()["figures"]
    assert polled["loss"]["layout"]["xaxis"]["title"]["text"] == "wall time (s)"
    odd = viewer.get(f"/training/{dense.id}/?x=../etc&smooth=oops")
    assert odd.status_code == 200 and odd.context["chart_x"] == "step" and odd.context["chart_smoothing"] == 0.0
    compared = viewer.get(f"/training/compare/?runs={sparse.id}&runs={dense.id}&smooth=0.6").content.decode()
    assert f'<input type="hidden" name="runs" value="{sparse.id}">' in compared
    assert page_figure(compared, "reward-figure")["data"][1]["name"].endswith("(raw)")


def test_evaluation_reward_is_split_by_component_beside_the_steps_split():
    lines = [{"step": 1, "reward_mean": 0.3, "reward_components": {"format": 0.1, "milestones": 0.2}},
             {"step": 2, "reward_mean": 0.5, "reward_components": {"format": 0.1, "milestones": 0.4},
              "eval_reward_mean": 0.45, "eval_reward_components": {"format": 0.15, "milestones": 0.3}},
             {"step": 3, "reward_mean": 0.6, "reward_components": {"format": 0.2, "milestones": 0.4}},
             {"step": 4, "reward_mean": 0.7, "reward_components": {"format": 0.2, "milestones": 0.5},
              "eval_reward_mean": 0.6, "eval_reward_components": {"format": 0.1, "milestones": 0.5}}]
    figures = metric_figures(lines)
    assert list(figures)[:3] == ["reward", "reward_parts", "eval_reward_parts"]
    evaluation = figures["eval_reward_parts"]
    # Only the steps that evaluated, each part stacked, the evaluation's mean dotted on top.
    assert [(trace["name"], trace["x"], trace["y"]) for trace in evaluation["data"]] == [
        ("format", [2, 4], [0.15, 0.1]), ("milestones", [2, 4], [0.3, 0.5]), ("total", [2, 4], [0.45, 0.6])]
    assert [trace.get("stackgroup") for trace in evaluation["data"]] == ["parts", "parts", None]
    assert "held-out" in evaluation["layout"]["title"]["text"]
    assert "eval_reward_parts" not in metric_figures([line for line in lines if "eval_reward_mean" not in line])
    # A line whose components are not a mapping (a hand-edited or foreign metrics file) draws nothing, not a 500.
    assert "eval_reward_parts" not in metric_figures([{"step": 1, "eval_reward_mean": 0.1,
                                                       "eval_reward_components": ["format", 0.1]}])


def test_annealed_and_async_runs_chart_their_own_quantities_and_other_runs_do_not():
    lines = [line | {"reply_temperature_first": 1.0, "reply_temperature_last": 0.1, "reply_entropy_first": 5.2,
                     "reply_entropy_last": 0.4, "staleness_max": 1, "rollout_wait_s": 0.3} for line in LINES]
    figures = metric_figures(lines)
    assert [trace["name"] for trace in figures["reply_temperature"]["data"]] == ["reply temperature first",
                                                                                  "reply temperature last"]
    assert figures["reply_entropy"]["data"][1]["y"] == [0.4, 0.4, 0.4]
    axes = {trace["name"]: trace.get("yaxis", "y") for trace in figures["staleness"]["data"]}
    assert axes == {"staleness max": "y", "rollout wait s": "y2"}
    assert figures["staleness"]["layout"]["yaxis2"]["title"]["text"] == "wait (s)"
    assert not {"reply_temperature", "reply_entropy", "staleness"} & set(metric_figures(LINES))
