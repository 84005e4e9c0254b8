"""Each scheme's reward parts sum to its total on real grades, and a step's per-part means sum to its mean reward."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sandmle.rewards.schemes import compute_reward
from sandmle.rl.rollouts import StepRollouts, episode_sample, reward_component_means, step_metrics
from sandmle.tasks.grading import grade_submission
from tests.engine.rollout_bundles import make_bundle


def judge_by_keyword(request: dict) -> str:
    asked = request["messages"][1]["content"]
    met = "inspects" in asked
    return json.dumps({"met": met, "reason": "seen" if met else "not seen"})


def graded_submissions(tmp_path) -> list:
    """A perfect file, the sample submission, a shuffled one and a broken one, graded on a real bundle."""
    task = make_bundle(tmp_path / "tasks", kind="regression")
    answers = pd.read_csv(task / "private" / "answers.csv")
    sample = pd.read_csv(task / "public" / "sample_submission.csv")
    target = [column for column in sample.columns if column != "id"][0]
    perfect = sample.assign(**{target: answers.set_index("id").loc[sample["id"], target].to_numpy()})
    shuffled = perfect.assign(**{target: perfect[target].sample(frac=1.0, random_state=0).to_numpy()})
    files = {"perfect": perfect, "sample": sample, "shuffled": shuffled}
    reports = []
    for name, frame in files.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        reports.append(grade_submission(task, tmp_path / f"{name}.csv"))
    (tmp_path / "broken.csv").write_text("id,nothing\n1,2\n")
    reports.append(grade_submission(task, tmp_path / "broken.csv"))
    return reports


@pytest.mark.parametrize("scheme", ["dense", "sparse", "rubric", "dense+rubric"])
def test_components_sum_to_the_total_for_every_scheme_and_step(scheme, tmp_path, chat_server, chat_client):
    chat_server.reply_fn = judge_by_keyword
    reports = graded_submissions(tmp_path)
    assert reports[0].gold_medal and not reports[-1].valid_submission  # the grades span gold to invalid
    trajectory = {"turns": [{"role": "tool", "code": "from sklearn.model_selection import KFold",
                             "observation": "", "step": {"termination": "ok"}}]}
    records = []
    for k, report in enumerate(reports):
        options = {"judge": chat_client} if "rubric" in scheme else {}
        breakdown = compute_reward(scheme, report=report, format_rate=k / 3, trajectory=trajectory, **options)
        assert sum(breakdown.components.values()) == pytest.approx(breakdown.total)
        records.append({"termination": "submitted", "rewards": {scheme: breakdown.to_dict()}, "grade": {},
                        "turns": [], "tokens": [{"prompt_ids": [1], "completion_ids": [2]}],
                        "sequence": {"ids": [1, 2, 3], "mask": [0, 1, 1], "logprobs": [None, -1.0, -1.0],
                                     "prompt_length": 1}})
    records.append({"termination": "error", "rewards": {}, "grade": {}, "turns": [], "tokens": []})  # no reward
    samples = [episode_sample(r, reward_scheme=scheme, max_episode_tokens=8, pad_id=0) for r in records]
    line = step_metrics(StepRollouts(trajectories=records, samples=samples), group_size=5, reward_scheme=scheme)
    assert samples[-1].reward is None and len(line["reward_components"]) >= 2
    assert sum(line["reward_components"].values()) == pytest.approx(line["reward_mean"])
    assert line["reward_mean"] > 0
    # Evaluation counts every episode (a missing entry adds 0), as its eval_reward_mean does.
    every = reward_component_means(records, reward_scheme=scheme)
    assert sum(every.values()) == pytest.approx(sum(s.reward or 0.0 for s in samples) / len(records))
