"""Dense against sparse on a batch's and a campaign's page: the chart's data (one bar trace per scheme, episodes by
reward total) and the table come from every episode's stored scheme totals; pages of older summaries show no panel."""

from __future__ import annotations

import re

import pytest

from sandmle.rewards.comparison import scheme_comparison
from tests.page_figures import page_figure


def figure_data(html: str) -> dict:
    return page_figure(html, "reward-schemes-figure")


def _rewards(dense: float, sparse: float, format_part: float = 0.0) -> dict:
    return {"dense": {"total": dense, "components": {"valid": dense - format_part, "format": format_part}},
            "sparse": {"total": sparse, "components": {"gold": sparse - format_part, "format": format_part}}}


@pytest.fixture
def batch_with_schemes(users, task_set):
    from training_app.models import RolloutBatch

    episodes = [("t1", _rewards(0.9, 1.0)), ("t1", _rewards(0.2, 0.0)), ("t2", _rewards(0.25, 0.05, 0.05)),
                ("t2", _rewards(0.05, 0.05, 0.05))]
    return RolloutBatch.objects.create(task_set=task_set, scaffold="react", policy="baseline", samples=2,
                                       state="succeeded", summary={"episodes": 4,
                                                                   "reward_schemes": scheme_comparison(episodes)})


def test_the_batch_page_charts_and_tables_dense_against_sparse(client_for, batch_with_schemes):
    html = client_for("viewer").get(f"/rollouts/{batch_with_schemes.id}/").content.decode()
    figure = figure_data(html)
    traces = {trace["name"]: trace for trace in figure["data"]}
    assert set(traces) == {"dense", "sparse"} and all(trace["type"] == "bar" for trace in traces.values())
    assert traces["dense"]["x"][0] == "0.0–0.1" and len(traces["dense"]["x"]) == 10
    assert traces["dense"]["y"] == [1, 0, 2, 0, 0, 0, 0, 0, 0, 1]  # 0.05; 0.2 and 0.25; 0.9
    assert traces["sparse"]["y"] == [3, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert figure["layout"]["barmode"] == "group" and "vendor/plotly.min.js" in html
    table = html[html.index('id="reward-schemes-table"'):]
    sparse_row = re.search(r'<tr data-scheme="sparse">(.*?)</tr>', table, re.S).group(1)
    # Sparse pays one episode in four for its outcome and leaves t2 (0.05, 0.05) without spread; dense leaves none.
    assert "0.275" in sparse_row and "25%" in sparse_row and "50% <small" in sparse_row and "n=4" in sparse_row
    dense_row = re.search(r'<tr data-scheme="dense">(.*?)</tr>', table, re.S).group(1)
    assert "0.350" in dense_row and "75%" in dense_row and "0% <small" in dense_row and "format 0.025" in dense_row


def test_a_summary_without_the_comparison_shows_no_panel(client_for, batch_with_schemes):
    from training_app.models import RolloutBatch

    RolloutBatch.objects.filter(id=batch_with_schemes.id).update(summary={"episodes": 4, "mean_reward": {"dense": 0.3}})
    html = client_for("viewer").get(f"/rollouts/{batch_with_schemes.id}/").content.decode()
    assert 'id="reward-schemes"' not in html and "plotly.min.js" not in html


def test_a_real_batch_stores_the_comparison_of_its_episodes(client_for, finished_batch):
    """The worker's summary agrees with the scheme totals its trajectories store."""
    records = [trajectory.record for trajectory in finished_batch.trajectories.all()]
    stored = {scheme["name"]: scheme for scheme in finished_batch.summary["reward_schemes"]["schemes"]}
    for name in ("dense", "sparse"):
        totals = [record["rewards"][name]["total"] for record in records]
        assert stored[name]["episodes"] == len(totals)
        assert stored[name]["mean"] == pytest.approx(sum(totals) / len(totals))
    figure = figure_data(client_for("viewer").get(f"/rollouts/{finished_batch.id}/").content.decode())
    assert [sum(trace["y"]) for trace in figure["data"]] == [len(records), len(records)]
