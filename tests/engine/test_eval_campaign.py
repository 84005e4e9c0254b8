"""Campaigns: the grid of episodes through the one runner, its files, resume without rerunning, stop, bad specs."""

from __future__ import annotations

import json

import pytest

from sandmle.errors import UsageError
from sandmle.evaluation.campaign import CampaignSpec, episode_key, read_episodes, run_campaign
from tests.engine.rollout_bundles import make_bundle


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("campaign-tasks")
    return [make_bundle(root, kind="binary", rows=80), make_bundle(root, kind="regression", rows=80)]


def spec_for(task_dirs, **changes):
    settings = dict(policies=["baseline"], scaffolds=["react"], tasks=task_dirs, seeds=2, feedback="validate",
                    max_turns=4, time_budget_s=120.0)
    return CampaignSpec(**{**settings, **changes})


def test_a_resumed_campaign_runs_no_episode_twice(tasks, tmp_path):
    seen = []
    stop_after_first = lambda: len(seen) >= 1  # noqa: E731 - stops between episodes, as a cancel would
    first = run_campaign(spec_for(tasks), tmp_path, on_episode=seen.append, should_stop=stop_after_first)
    assert len(seen) == 1 and first["complete"] is False

    resumed = []
    report = run_campaign(spec_for(tasks), tmp_path, on_episode=resumed.append)
    assert report["complete"] is True and report["episodes"] == 4
    keys = [json.loads(line)["key"] for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert sorted(keys) == sorted({episode_key("baseline", "react", t.name, s) for t in tasks for s in range(2)})
    assert seen[0]["key"] not in {record["key"] for record in resumed} and len(resumed) == 3

    again = []
    run_campaign(spec_for(tasks), tmp_path, on_episode=again.append)
    assert again == [] and len(read_episodes(tmp_path)) == 4

    record = read_episodes(tmp_path)[0]
    assert set(record) == {"key", "policy", "scaffold", "task_id", "seed", "report", "trajectory"}
    assert record["report"]["valid_submission"] is True and "gold_threshold" in record["report"]
    assert record["trajectory"]["termination"] == "answered"
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["cells"][0]["n"] == 4 and saved["cells"][0]["metrics"]["valid_rate"]["mean"] == 1.0
    assert (tmp_path / "report.csv").read_text().startswith("policy,scaffold,n,")


@pytest.mark.parametrize("changes, field", [
    ({"policies": []}, "policies"), ({"scaffolds": ["nope"]}, "scaffolds"), ({"seeds": 0}, "seeds"),
    ({"baseline": "hf:elsewhere"}, "baseline"), ({"feedback": "all"}, "feedback"), ({"max_turns": 0}, "max_turns"),
    ({"tasks": []}, "tasks"), ({"temperature": -1.0}, "temperature"),
])
def test_a_bad_spec_names_its_field(tasks, changes, field):
    with pytest.raises(UsageError, match=f"^{field}: "):
        spec_for(tasks, **changes).validate()


def test_a_folder_that_is_not_a_bundle_is_refused(tmp_path):
    with pytest.raises(UsageError, match="^tasks: "):
        spec_for([tmp_path]).validate()
