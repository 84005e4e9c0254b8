"""The generation layer on the tiny Qwen3: batched `hf` sampling against serial calls (same seeds, same shapes,
logprobs of a forward pass), one backend call per turn across episodes, and a rollout batch through the sandbox."""

from __future__ import annotations

import os
import threading
import time

import pytest

from sandmle.agents import SamplingParams, make_policy
from sandmle.generation import BatchedPolicy, GenerationStats
from sandmle.rollout import EpisodeConfig, run_batch, summarize
from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from tests.engine.tiny_qwen import build_tiny_qwen

    return build_tiny_qwen(tmp_path_factory.mktemp("tiny-qwen") / "checkpoint")


@pytest.fixture(scope="module")
def policy(checkpoint):
    return make_policy(f"hf:{checkpoint}")


def conversation(index: int) -> list[dict]:
    # Prompts of different lengths, so the batch really is left-padded.
    return [{"role": "system", "content": "Solve the task."},
            {"role": "user", "content": "Predict the label. " + "Read train.csv first. " * index}]


def forward_logprobs(policy, prompt, completion, sampling):
    """Each completion token's logprob under one forward pass of prompt + completion, at the row's settings."""
    import torch

    from sandmle.agents.policies.hf import sampling_temperature

    with torch.no_grad():
        logits = policy.model(input_ids=torch.tensor([prompt + completion])).logits[0].float()
    values = []
    for index, token in enumerate(completion):
        log_probs = torch.log_softmax(logits[len(prompt) + index - 1] / sampling_temperature(index, sampling), dim=-1)
        if sampling.top_p < 1.0:  # the same nucleus the sampler kept
            sorted_values, order = torch.sort(log_probs, descending=True)
            drop = torch.cumsum(sorted_values.exp(), dim=-1) - sorted_values.exp() >= sampling.top_p
            sorted_values[drop] = float("-inf")
            log_probs = torch.log_softmax(torch.full_like(log_probs, float("-inf")).scatter(0, order, sorted_values), -1)
        values.append(float(log_probs[token]))
    return values


def test_batched_hf_redraws_the_serial_tokens_with_forward_pass_logprobs(policy):
    samplings = [SamplingParams(max_tokens=10, seed=11), SamplingParams(max_tokens=6, seed=12, temperature=0.7),
                 SamplingParams(max_tokens=12, seed=13, top_p=0.8),
                 SamplingParams(max_tokens=12, seed=14, ead=True, ead_decay=5.0, ead_warmup_tokens=2),
                 SamplingParams(max_tokens=9, seed=11)]
    requests = [(conversation(i), s) for i, s in enumerate(samplings)]
    serial = [policy.generate(messages, sampling=sampling) for messages, sampling in requests]
    batched = policy.generate_batch(requests)
    # The same request inside another batch (a resumed run, other episodes alive) draws the same tokens again.
    again = policy.generate_batch(list(reversed(requests[1:])))[::-1]

    assert len(batched) == len(requests)
    for index, (one, row, (_, sampling)) in enumerate(zip(serial, batched, requests)):
        assert row.prompt_ids == one.prompt_ids
        assert row.completion_ids == one.completion_ids, index  # per-row seeds: batch composition does not matter
        assert 1 <= len(row.completion_ids) <= sampling.max_tokens
        assert row.finish_reason in ("stop", "length")
        assert row.text == policy.tokenizer.decode(row.completion_ids, skip_special_tokens=True)
        expected = forward_logprobs(policy, row.prompt_ids, row.completion_ids, sampling)
        assert row.logprobs == pytest.approx(expected, abs=1e-4)
        assert row.logprobs == pytest.approx(one.logprobs, abs=1e-4)
    for row, repeat in zip(batched[1:], again):
        assert repeat.completion_ids == row.completion_ids
    assert batched[0].completion_ids[:9] != batched[2].completion_ids[:9]  # rows do not share a generator


def test_stop_string_ends_only_its_row(policy):
    first = policy.generate(conversation(1), sampling=SamplingParams(max_tokens=16, seed=3))
    stop = policy.tokenizer.decode(first.completion_ids[:3], skip_special_tokens=True)[-2:]
    assert stop.strip(), "the tiny model's first tokens decode to text"
    rows = policy.generate_batch([(conversation(1), SamplingParams(max_tokens=16, seed=3, stop=[stop])),
                                  (conversation(2), SamplingParams(max_tokens=16, seed=4))])
    assert rows[0].finish_reason == "stop" and rows[0].text.endswith(stop) and len(rows[0].completion_ids) <= 3
    assert rows[1].completion_ids == policy.generate(conversation(2), sampling=SamplingParams(max_tokens=16, seed=4)).completion_ids


def run_episodes(policy: BatchedPolicy, count: int, turns: int, pause_s) -> list[list]:
    """`count` threads, each an episode of `turns` policy calls with a 'sandbox step' of pause_s(index, turn) between."""
    replies: list[list] = [[] for _ in range(count)]

    def episode(index: int) -> None:
        with policy.episode():
            messages = conversation(index)
            for turn in range(turns):
                reply = policy.generate(messages, sampling=SamplingParams(max_tokens=6, seed=index))
                replies[index].append(reply)
                messages = messages + [{"role": "assistant", "content": reply.text},
                                       {"role": "user", "content": f"<observation>turn {turn}</observation>"}]
                time.sleep(pause_s(index, turn))

    policy.expect(count)
    threads = [threading.Thread(target=episode, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return replies


def test_one_backend_call_per_turn_across_episodes(policy):
    batched = BatchedPolicy(policy, max_batch=8, max_wait_s=60.0)  # flush only when every live episode waits
    replies = run_episodes(batched, count=5, turns=3, pause_s=lambda index, turn: 0.01 * index)

    figures = batched.stats.summary()
    assert figures["generate_calls"] == 3 and figures["mean_batch_size"] == 5.0
    assert figures["tokens_per_s"] > 0 and figures["generation_s"] > 0
    for episode in replies:
        assert len(episode) == 3
        for earlier, later in zip(episode, episode[1:]):  # each turn continues the sampled ids, never re-tokenised
            assert later.prompt_ids[: len(earlier.prompt_ids) + len(earlier.completion_ids)] == (
                earlier.prompt_ids + earlier.completion_ids)


def test_a_slow_sandbox_step_does_not_hold_the_others(policy):
    batched = BatchedPolicy(policy, max_batch=8, max_wait_s=0.05)
    started = time.monotonic()
    replies = run_episodes(batched, count=3, turns=2, pause_s=lambda index, turn: 3.0 if index == 0 else 0.0)
    assert all(len(episode) == 2 for episode in replies)
    # The fast episodes' second turns went out without the slow one (which came alone, 3 s later).
    assert batched.stats.generate_calls >= 3
    assert time.monotonic() - started >= 3.0


def test_rollout_batch_batches_turns_through_the_sandbox(tmp_path, policy):
    tasks = [make_bundle(tmp_path / "a", kind="binary"), make_bundle(tmp_path / "b", kind="binary", seed=1)]
    stats = GenerationStats()
    config = EpisodeConfig(max_turns=2, seed=3, sampling=SamplingParams(max_tokens=12))
    trajectories = run_batch(tasks, scaffold="react", policy_spec=policy, samples=2, concurrency=4, config=config,
                             stats=stats)
    summary = summarize(trajectories, stats=stats)

    assert len(trajectories) == 4 and all(t.error is None for t in trajectories), [t.error for t in trajectories]
    replies = sum(len(t.tokens) for t in trajectories)
    assert summary["generate_calls"] < replies and summary["mean_batch_size"] > 1.0
    for key in ("tokens_per_s", "generation_s", "sandbox_s", "wait_s"):
        assert summary[key] >= 0.0
    for trajectory in trajectories:
        sequence = trajectory.sequence
        assert [t for t, bit in zip(sequence["ids"], sequence["mask"]) if bit] == [
            token for record in trajectory.tokens for token in record["completion_ids"]]
