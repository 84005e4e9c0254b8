"""The batch runner: one failing episode never takes down its batch; cancellation, summaries and token records."""

from __future__ import annotations

import shutil

from sandmle.episodes.runner import EpisodeConfig, flatten_tokens, run_batch, summarize, token_records
from sandmle.sandbox import SandboxPool
from tests.engine.rollout_bundles import COPY_SAMPLE, ScriptedPolicy, make_bundle


def react_or_raise(messages, sampling):
    """Writes the sample submission and answers; the sample with seed 1 crashes like a dead endpoint would."""
    if sampling.seed == 1:
        raise ConnectionError("the policy server went away")
    if not any(m["role"] == "assistant" for m in messages):
        return f"<think>copy</think><python>{COPY_SAMPLE}</python>"
    return "<think>done</think><answer>submission.csv</answer>"


def test_one_failing_episode_does_not_take_down_its_batch(tmp_path):
    good_task = make_bundle(tmp_path, kind="binary")
    broken_task = shutil.copytree(good_task, tmp_path / "broken")
    (broken_task / "public" / "description.md").unlink()
    (broken_task / "task.json").write_text("{not json")
    seen = []
    # A warm pool shared by the episodes; the steps here need no pandas, so its zygotes preload nothing.
    with SandboxPool(max_zygotes=2, preload=()) as pool:
        trajectories = run_batch([good_task, broken_task], scaffold="react",
                                 policy_spec=ScriptedPolicy(reply_fn=react_or_raise), samples=3, concurrency=2,
                                 config=EpisodeConfig(), on_trajectory=seen.append, pool=pool)

    assert len(trajectories) == len(seen) == 6
    assert [(t.task_id, t.sample_index) for t in trajectories] == [
        ("binary-0", 0), ("binary-0", 1), ("binary-0", 2), ("broken", 0), ("broken", 1), ("broken", 2)]
    assert [t.termination for t in trajectories[:3]] == ["answered", "error", "answered"]
    # A policy error ends the episode but still grades what it left (here: nothing).
    assert "the policy server went away" in trajectories[1].error
    assert trajectories[1].grade.submission_exists is False
    assert all(t.grade.valid_submission for t in (trajectories[0], trajectories[2]))
    assert all(t.termination == "error" and "description.md" in t.error for t in trajectories[3:])
    # Failed episodes say why in one line without host paths, and count as reward 0 in their group.
    assert not any(str(tmp_path) in t.error for t in trajectories if t.error)
    assert all(t.rewards["dense"]["total"] == 0.0 for t in trajectories if t.termination == "error")
    assert {t.group_id for t in trajectories[:3]} == {"0:binary-0"}
    summary = summarize(trajectories)
    assert summary["episodes"] == 6 and summary["terminations"] == {"answered": 2, "error": 4}
    assert summary["valid_rate"] == 2 / 6
    assert summary["mean_step_latency_s"] > 0
    dense = summary["reward_schemes"]["schemes"][0]
    # Two groups: binary-0's valid and failed samples differ; the broken task's three zeros leave no spread.
    assert dense["name"] == "dense" and dense["episodes"] == 6 and dense["groups"] == 2
    assert dense["zero_spread_share"] == 0.5


def test_cancelled_batch_keeps_the_finished_episodes(tmp_path):
    task = make_bundle(tmp_path, kind="binary")
    finished = []
    trajectories = run_batch([task], scaffold="react",
                             policy_spec=ScriptedPolicy(reply_fn=lambda m, s: "<answer>submission.csv</answer>"),
                             samples=4, concurrency=1, config=EpisodeConfig(), on_trajectory=finished.append,
                             should_cancel=lambda: len(finished) >= 2)
    assert [t.sample_index for t in trajectories] == [0, 1]


def test_token_records_and_flattened_sequence():
    turns = [
        {"role": "assistant", "prompt_ids": [1, 2], "completion_ids": [3, 4], "logprobs": [-0.1, -0.2]},
        {"role": "tool", "prompt_ids": None, "completion_ids": None},
        {"role": "assistant", "prompt_ids": [1, 2, 3, 4, 9, 9], "completion_ids": [5], "logprobs": [-0.3]},
    ]
    records = token_records(turns)
    assert [r["turn"] for r in records] == [0, 2]
    assert records[1]["mask"] == [0, 0, 0, 0, 0, 0, 1]
    assert flatten_tokens(records) == {"ids": [1, 2, 3, 4, 9, 9, 5], "mask": [0, 0, 1, 1, 0, 0, 1],
                                       "logprobs": [None, None, -0.1, -0.2, None, None, -0.3], "prompt_length": 2}
    # A prompt that does not extend the earlier tokens (trimmed context, re-tokenised reply) gives no sequence.
    turns[2]["prompt_ids"] = [1, 2, 3, 7, 9]
    assert flatten_tokens(token_records(turns)) is None
    assert flatten_tokens([]) is None
