"""The `hf` policy on a tiny Qwen3 built here: a ReAct episode end to end, exact masks and logprobs, and EAD sampling."""

from __future__ import annotations

import math
import os

import pytest

from sandmle.agents import SamplingParams, make_policy
from sandmle.agents.policies.schedule import ead_decay, ead_temperature, temperature_at
from sandmle.episodes.runner import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A random-weight Qwen3 and its locally trained tokenizer, saved as a real checkpoint directory."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from tests.engine.tiny_qwen import build_tiny_qwen

    return build_tiny_qwen(tmp_path_factory.mktemp("tiny-qwen") / "checkpoint")


@pytest.fixture(scope="module")
def policy(checkpoint):
    return make_policy(f"hf:{checkpoint}")  # the path a real checkpoint takes


def sampled_logprobs(policy, ids, temperatures):
    """Log-probabilities of ids[i] under the model at temperature temperatures[i] (None: not a sampled token)."""
    import torch

    with torch.no_grad():
        logits = policy.model(input_ids=torch.tensor([ids])).logits[0].float()
    values = []
    for position, temperature in enumerate(temperatures):
        if temperature is None:
            values.append(None)
            continue
        log_probs = torch.log_softmax(logits[position - 1] / temperature, dim=-1)
        values.append(float(log_probs[ids[position]]))
    return values


@pytest.mark.torch
def test_react_episode_masks_cover_exactly_the_sampled_tokens(tmp_path, policy):
    task_dir = make_bundle(tmp_path, kind="binary")
    config = EpisodeConfig(max_turns=3, seed=5, sampling=SamplingParams(max_tokens=12))
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=config)

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination in ("max_turns", "answered")
    replies = [t for t in trajectory.turns if t["role"] == "assistant"]
    records = trajectory.tokens
    assert len(records) == len(replies) >= 1
    for record, reply in zip(records, replies):
        prompt, completion = record["prompt_ids"], record["completion_ids"]
        assert 1 <= len(completion) <= 12
        assert record["mask"] == [0] * len(prompt) + [1] * len(completion)
        assert len(record["logprobs"]) == len(completion) and all(v <= 0.0 for v in record["logprobs"])
        assert reply["text"] == policy.tokenizer.decode(completion, skip_special_tokens=True)
    for earlier, later in zip(records, records[1:]):
        assert later["prompt_ids"][: len(earlier["prompt_ids"]) + len(earlier["completion_ids"])] == (
            earlier["prompt_ids"] + earlier["completion_ids"])

    sequence = trajectory.sequence
    assert sequence is not None and sequence["prompt_length"] == len(records[0]["prompt_ids"])
    ids, mask, logprobs = sequence["ids"], sequence["mask"], sequence["logprobs"]
    assert len(ids) == len(mask) == len(logprobs) == len(records[-1]["prompt_ids"]) + len(records[-1]["completion_ids"])
    # mask == 1 exactly at the sampled tokens, in order; everything else (prompt, tool text, markup) is 0.
    assert [token for token, bit in zip(ids, mask) if bit] == [t for r in records for t in r["completion_ids"]]
    assert [value is not None for value in logprobs] == [bool(bit) for bit in mask]
    tool_text = policy.tokenizer.decode([token for token, bit in zip(ids[sequence["prompt_length"]:], mask[sequence["prompt_length"]:]) if not bit])
    if len(records) > 1:
        observations = [t["observation"] for t in trajectory.turns if t["role"] == "tool"]
        assert observations[0].splitlines()[0] in tool_text
    # The recorded logprobs are the model's own for the whole sequence (temperature 1, no top-p).
    recomputed = sampled_logprobs(policy, ids, [1.0 if bit else None for bit in mask])
    for recorded, expected in zip(logprobs, recomputed):
        assert (recorded is None) == (expected is None)
        if recorded is not None:
            assert recorded == pytest.approx(expected, abs=1e-4)


@pytest.mark.torch
def test_prompt_continuation_matches_the_template(policy):
    conversation = [{"role": "system", "content": "Solve it."}, {"role": "user", "content": "Predict the label."}]
    prompt = policy.prompt_ids(conversation)
    assert prompt == policy._render(conversation)
    reply_text = "<think>Read the data first.</think>"
    reply_ids = policy.tokenizer.encode(reply_text, add_special_tokens=False)
    follow_up = conversation + [{"role": "assistant", "content": reply_text}, {"role": "user", "content": "<observation>ok</observation>"}]
    expected = policy._render(follow_up)
    for sampled_end_of_turn in (False, True):
        completion = reply_ids + ([policy.tokenizer.eos_token_id] if sampled_end_of_turn else [])
        policy._history = [(conversation + [{"role": "assistant", "content": reply_text}], prompt + completion)]
        # The reply's sampled ids are kept, the end-of-turn token is never doubled, the rest follows the template.
        assert policy.prompt_ids(follow_up) == expected
    policy._history = []


def test_ead_temperature_formula():
    settings = {"tau_max": 1.2, "tau_min": 0.1, "decay": 100.0, "warmup_tokens": 10}
    assert [ead_temperature(t, **settings) for t in range(10)] == [1.0] * 10
    for t in (10, 30, 60, 90):
        assert ead_temperature(t, **settings) == pytest.approx(max(1 + 1.2 - math.exp(t / 100), 0.1))
    assert ead_temperature(10, **settings) > 1.0  # hot right after the template tokens
    assert ead_temperature(500, **settings) == 0.1  # floored at tau_min
    temperatures = [ead_temperature(t, **settings) for t in range(10, 200)]
    assert temperatures == sorted(temperatures, reverse=True)
    # d grows with the training step (d_s = min(d_0 + 5 s, 40000)), so later policies stay hot for longer.
    assert ead_decay(100.0, 0) == 100.0 and ead_decay(100.0, 20) == 200.0 and ead_decay(100.0, 10**6) == 40000.0
    late = SamplingParams(ead=True, ead_decay=100.0, ead_training_step=20)
    assert temperature_at(100, late) == pytest.approx(1 + 1.2 - math.exp(100 / 200))
    assert temperature_at(100, SamplingParams(temperature=0.7)) == 0.7  # EAD off: the fixed temperature


@pytest.mark.torch
def test_sampling_follows_the_ead_schedule(policy):
    messages = [{"role": "user", "content": "Train a model."}]
    sampling = SamplingParams(max_tokens=12, seed=1, ead=True, ead_tau_max=1.5, ead_tau_min=0.4, ead_decay=6.0,
                              ead_warmup_tokens=2, ead_training_step=0)
    reply = policy.generate(messages, sampling=sampling)
    policy._history = []
    ids = reply.prompt_ids + reply.completion_ids
    schedule = [temperature_at(t, sampling) for t in range(len(reply.completion_ids))]
    assert schedule[:2] == [1.0, 1.0] and schedule[2] > 1.0 and min(schedule) >= 0.4
    prompt_part = [None] * len(reply.prompt_ids)
    annealed = sampled_logprobs(policy, ids, prompt_part + schedule)[len(reply.prompt_ids):]
    fixed = sampled_logprobs(policy, ids, prompt_part + [1.0] * len(schedule))[len(reply.prompt_ids):]
    assert reply.logprobs == pytest.approx(annealed, abs=1e-4)
    if len(schedule) > 3:
        assert reply.logprobs != pytest.approx(fixed, abs=1e-4)  # the schedule, not a fixed temperature, was used


def test_missing_checkpoint_directory_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint directory not found"):
        make_policy(f"hf:{tmp_path / 'nope'}")
