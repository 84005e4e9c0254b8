"""Ids past what the database holds (SQLite's integers end at 2**63 - 1) are a 404 in every path that takes one, and
a 400 in every query string that lists them, never an OverflowError's 500."""

from __future__ import annotations

import pytest

HUGE = "99999999999999999999"


@pytest.mark.parametrize("path", [f"/training/{HUGE}/", f"/campaigns/{HUGE}/", f"/rollouts/{HUGE}/",
                                  f"/trajectories/{HUGE}/", f"/latency/{HUGE}/", f"/audits/{HUGE}/",
                                  f"/synthesis/{HUGE}/", f"/task-archives/import/{HUGE}/",
                                  f"/task-set-exports/{HUGE}/", f"/jobs/training/{HUGE}/progress/",
                                  f"/api/training-runs/{HUGE}/", f"/api/campaigns/{HUGE}/",
                                  f"/api/task-archive-imports/{HUGE}/", f"/api/rollout-batches/{HUGE}/"])
def test_a_huge_id_in_a_path_is_not_found(client_for, path):
    assert client_for("admin").get(path).status_code == 404
