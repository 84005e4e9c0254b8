"""Dense against sparse on the same episodes: means, outcome shares, groups left with no spread, parts, histogram."""

from __future__ import annotations

import pytest

from sandmle.rewards.comparison import HISTOGRAM_BINS, scheme_comparison


def _rewards(valid: bool, milestone: float, gold: bool, format_rate: float) -> dict:
    dense = {"valid": 0.2 * valid, "milestone": milestone, "format": 0.1 * format_rate}
    sparse = {"gold": 0.9 * gold, "format": 0.1 * format_rate}
    return {"sparse": {"total": sum(sparse.values()), "components": sparse},
            "dense": {"total": sum(dense.values()), "components": dense}}


def test_sparse_leaves_the_groups_dense_separates_without_spread():
    episodes = [
        ("task-a", _rewards(True, 0.5, False, 1.0)),  # bronze: dense pays it, sparse only its format
        ("task-a", _rewards(False, 0.0, False, 1.0)),
        ("task-b", _rewards(True, 0.7, True, 0.0)),  # gold: both pay
        ("task-b", _rewards(True, 0.1, False, 0.0)),
        ("task-c", {}),  # an episode stored without rewards counts for no scheme
    ]
    found = scheme_comparison(episodes)
    dense, sparse = found["schemes"]
    assert [dense["name"], sparse["name"]] == ["dense", "sparse"]  # the paper's two first, whatever the dict order
    assert dense["episodes"] == sparse["episodes"] == 4
    assert dense["mean"] == pytest.approx((0.8 + 0.1 + 0.9 + 0.3) / 4)
    assert sparse["mean"] == pytest.approx((0.1 + 0.1 + 0.9 + 0.0) / 4)
    assert dense["outcome_share"] == 0.75 and sparse["outcome_share"] == 0.25  # the format part pays no outcome
    assert dense["groups"] == sparse["groups"] == 2
    assert dense["zero_spread_share"] == 0.0 and sparse["zero_spread_share"] == 0.5  # task-a: 0.1 and 0.1
    assert dense["components"] == pytest.approx({"format": 0.05, "milestone": 0.325, "valid": 0.15})
    assert found["bin_edges"][0] == 0.0 and found["bin_edges"][-1] == 1.0
    assert len(found["histogram"]["dense"]) == HISTOGRAM_BINS
    assert found["histogram"]["sparse"] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]  # 0.0; 0.1 twice; 0.9
    assert sum(found["histogram"]["dense"]) == 4 and found["histogram"]["dense"][8] == 1  # 0.8
    assert dense["sem"] > 0


def test_one_episode_has_no_sem_nor_groups_and_odd_records_are_skipped():
    found = scheme_comparison([("task-a", {"dense": {"total": 1.0, "components": {}}, "rubric": "not a breakdown",
                                           "sparse": {"total": "NaN"}})])
    (dense,) = found["schemes"]
    assert dense["sem"] is None and dense["groups"] == 0 and dense["zero_spread_share"] is None
    assert found["histogram"]["dense"][-1] == 1  # a total of 1.0 lands in the last bin
    assert scheme_comparison([]) == {} and scheme_comparison([("t", None)]) == {}
