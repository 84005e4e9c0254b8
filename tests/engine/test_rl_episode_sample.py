"""episode_sample, the function that turns a trajectory into TRL's record (prompt ids, completion ids, env_mask,
logprobs, reward): the mask is 1 exactly on the tokens the policy sampled, from a real two-turn ReAct episode of
the reply-menu model through the sandbox, and episodes that must not train are masked whole."""

from __future__ import annotations

import os

import pytest

from sandmle.episodes.runner import flatten_tokens, token_records
from sandmle.rl.rollouts import episode_sample
from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")


def hand_made(*, termination: str = "max_turns") -> dict:
    """Two replies around a tool observation; the second reply's first two tokens were forced (mask 0)."""
    turns = [{"role": "assistant", "prompt_ids": [1, 2, 3], "completion_ids": [10, 11], "logprobs": [-0.1, -0.2]},
             {"role": "tool"},
             {"role": "assistant", "prompt_ids": [1, 2, 3, 10, 11, 7, 7, 7], "completion_ids": [20, 21, 22],
              "logprobs": [0.0, 0.0, -0.3], "completion_mask": [0, 0, 1]}]
    tokens = token_records(turns)
    return {"termination": termination, "tokens": tokens, "sequence": flatten_tokens(tokens),
            "rewards": {"dense": {"total": 0.8}}}


def test_the_mask_marks_sampled_tokens_and_leaves_out_observations_and_forced_text():
    sample = episode_sample(hand_made(), reward_scheme="dense", max_episode_tokens=100, pad_id=0)
    assert sample.prompt_ids == [1, 2, 3]
    assert sample.completion_ids == [10, 11, 7, 7, 7, 20, 21, 22]
    assert sample.env_mask == [1, 1, 0, 0, 0, 0, 0, 1]
    assert sample.logprobs == [-0.1, -0.2, None, None, None, 0.0, 0.0, -0.3]
    assert sample.reward == 0.8 and not sample.truncated


def test_a_long_episode_is_cut_to_the_token_budget_with_its_mask():
    sample = episode_sample(hand_made(), reward_scheme="dense", max_episode_tokens=4, pad_id=0)
    assert sample.completion_ids == [10, 11, 7, 7] and sample.env_mask == [1, 1, 0, 0] and sample.truncated
    assert sample.reward == 0.8


@pytest.mark.parametrize("baseline", ["reference", "exclude"])
@pytest.mark.parametrize("change", ["time_budget", "error", "no reward", "no sequence", "step timeouts"])
def test_episodes_that_must_not_train_are_masked_whole(change, baseline):
    trajectory = hand_made(termination=change if change in ("time_budget", "error") else "max_turns")
    if change == "no reward":
        trajectory["rewards"] = {}
    if change == "no sequence":  # a prompt that did not extend the last one: no mask can be trusted
        trajectory["sequence"] = None
    if change == "step timeouts":  # 1 of its 4 steps timed out: above the reference's share of 0.2
        trajectory["turns"] = [{"role": "tool", "step": {"termination": t}} for t in ("ok", "timeout", "ok", "ok")]
    sample = episode_sample(trajectory, reward_scheme="dense", max_episode_tokens=100, pad_id=0,
                            masked_in_baseline=baseline, mask_step_timeout_share=0.2)
    assert not sample.trained and not any(sample.env_mask) and sample.completion_ids
    assert sample.mask_reason == {"no reward": "no_reward", "no sequence": "no_sequence",
                                  "step timeouts": "step_timeouts"}.get(change, change)
    assert len(sample.env_mask) == len(sample.completion_ids) == len(sample.logprobs)
    # rLLM's rule: an episode that took a turn counts in its group's statistics, then gets no loss.
    expected = 0.8 if baseline == "reference" and change != "no reward" else None
    assert sample.reward == expected


def test_the_step_timeout_share_masks_only_above_it():
    trajectory = hand_made()
    trajectory["turns"] = [{"role": "tool", "step": {"termination": t}} for t in ("ok", "timeout", "ok", "ok", "ok")]
    assert episode_sample(trajectory, reward_scheme="dense", max_episode_tokens=100, pad_id=0,
                          mask_step_timeout_share=0.2).trained  # exactly 0.2 is not more than 0.2
    assert not episode_sample(trajectory, reward_scheme="dense", max_episode_tokens=100, pad_id=0,
                              mask_step_timeout_share=0.1).trained
    assert episode_sample(trajectory, reward_scheme="dense", max_episode_tokens=100, pad_id=0,
                          mask_step_timeout_share=1.0).trained


def test_a_masked_episode_in_the_baseline_moves_its_groups_advantages_as_the_reference_does():
    """The issue's group {timeout 0.05, 0.3, 0.8, 0.3}: the 0.3 samples get -0.20 with the timeout in the baseline
    (the reference) and -0.58 without it, normalised as TRL does (unbiased std + 1e-4)."""
    import statistics

    group = [hand_made(termination="time_budget")] + [hand_made() for _ in range(3)]
    for trajectory, reward in zip(group, (0.05, 0.3, 0.8, 0.3)):
        trajectory["rewards"] = {"dense": {"total": reward}}
    for baseline, expected in (("reference", -0.20), ("exclude", -0.58)):
        samples = [episode_sample(t, reward_scheme="dense", max_episode_tokens=100, pad_id=0,
                                  masked_in_baseline=baseline) for t in group]
        present = [s.reward for s in samples if s.reward is not None]
        mean, std = statistics.fmean(present), statistics.stdev(present)
        assert (samples[1].reward - mean) / (std + 1e-4) == pytest.approx(expected, abs=0.005), baseline
        assert [s.trained for s in samples] == [False, True, True, True]


@pytest.mark.torch
def test_a_real_react_episode_of_the_menu_model_trains_on_its_two_sampled_tokens_only(tmp_path):
    pytest.importorskip("torch").set_num_threads(1)
    from sandmle.agents import make_policy
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.episodes.runner import EpisodeConfig, run_episode
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    policy = make_policy(f"hf:{build_tiny_checkpoint(tmp_path / 'menu', reply_menu=TABULAR_REPLY_MENU)}")
    task = make_bundle(tmp_path / "tasks", kind="regression")
    trajectory = run_episode(task, scaffold="react", policy=policy, config=EpisodeConfig(max_turns=2)).to_dict()
    replies = [turn for turn in trajectory["turns"] if turn["role"] == "assistant"]
    steps = [turn for turn in trajectory["turns"] if turn["step"] is not None]
    assert len(replies) == 2 and len(steps) == 2 and all(s["step"]["termination"] == "ok" for s in steps)
    sample = episode_sample(trajectory, reward_scheme="dense", max_episode_tokens=100_000, pad_id=0)
    assert sample.reward == trajectory["rewards"]["dense"]["total"]
    assert sample.prompt_ids == replies[0]["prompt_ids"]
    # The second prompt extends the first reply token for token, so the episode is one sequence ...
    full = sample.prompt_ids + sample.completion_ids
    for reply in replies:
        start = len(reply["prompt_ids"])
        assert full[:start] == reply["prompt_ids"] and full[start:start + len(reply["completion_ids"])] == \
            reply["completion_ids"]
    # ... and its mask is 1 on exactly the two tokens the policy sampled, one a reply, at their positions.
    sampled = [len(reply["prompt_ids"]) + reply["completion_mask"].index(1) - len(sample.prompt_ids)
               for reply in replies]
    assert [i for i, bit in enumerate(sample.env_mask) if bit] == sampled
    assert [sample.completion_ids[i] for i in sampled] == \
        [reply["completion_ids"][reply["completion_mask"].index(1)] for reply in replies]
    assert all(sample.logprobs[i] < 0 for i in sampled)
