"""The generation layer on the tiny Qwen3: batched `hf` sampling against serial calls (same seeds, same shapes,
logprobs of a forward pass), one backend call per turn across episodes, and a rollout batch through the sandbox."""

from __future__ import annotations

import os
import threading
import time

import pytest

from sandmle.agents import SamplingParams, make_policy
from sandmle.generation import BatchedPolicy
from tests.engine.rollout_bundles import batched_rollout_on_two_tasks

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

    from sandmle.agents.policies.schedule import temperature_at

    with torch.no_grad():
        logits = policy.model(input_ids=torch.tensor([prompt + completion])).logits[0].float()
    values = []
    for index, token in enumerate(completion):
        log_probs = torch.log_softmax(logits[len(prompt) + index - 1] / temperature_at(index, sampling), dim=-1)
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


def run_episodes(policy: BatchedPolicy, count: int, turns: int, pause_s, setup_s=lambda index: 0.0) -> list[list]:
    """`count` threads, each an episode: a setup of setup_s(index), then `turns` policy calls with a 'sandbox step' of
    pause_s(index, turn) after each. Returns each episode's events: ("reply", turn, reply, time) after each reply
    came back, ("submit", turn, time) before each turn went in, ("error", turn, error) when a turn failed."""
    events: list[list] = [[] for _ in range(count)]

    def episode(index: int) -> None:
        with policy.episode():
            time.sleep(setup_s(index))
            messages = conversation(index)
            for turn in range(turns):
                events[index].append(("submit", turn, time.monotonic()))
                try:
                    reply = policy.generate(messages, sampling=SamplingParams(max_tokens=6, seed=index))
                except RuntimeError as error:
                    events[index].append(("error", turn, error))
                    return
                events[index].append(("reply", turn, reply, time.monotonic()))
                messages = messages + [{"role": "assistant", "content": reply.text},
                                       {"role": "user", "content": f"<observation>turn {turn}</observation>"}]
                time.sleep(pause_s(index, turn))

    policy.expect(count)
    threads = [threading.Thread(target=episode, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return events


def replies_of(events: list) -> list:
    return [event[2] for event in events if event[0] == "reply"]


def test_one_backend_call_per_turn_across_episodes(policy):
    batched = BatchedPolicy(policy, max_batch=8)
    events = run_episodes(batched, count=5, turns=3, pause_s=lambda index, turn: 0.01 * index)

    figures = batched.stats.summary()
    assert figures["generate_calls"] == 3 and figures["mean_batch_size"] == 5.0
    assert figures["tokens_per_s"] > 0 and figures["generation_s"] > 0
    for episode in map(replies_of, events):
        assert len(episode) == 3
        for earlier, later in zip(episode, episode[1:]):  # each turn continues the sampled ids, never re-tokenised
            assert later.prompt_ids[: len(earlier.prompt_ids) + len(earlier.completion_ids)] == (
                earlier.prompt_ids + earlier.completion_ids)


def test_spread_out_steps_of_usual_length_still_share_one_call_per_turn(policy):
    """Setups and sandbox steps that end over ~0.4 s (many times the grace of 0.05 s), as when many steps share two
    cores: each turn still waits for every episode, because none is far past the usual work time."""
    batched = BatchedPolicy(policy, max_batch=16)
    events = run_episodes(batched, count=8, turns=3, setup_s=lambda index: 0.1 + 0.04 * index,
                          pause_s=lambda index, turn: 0.05 * ((index + 3 * turn) % 8))

    assert all(len(replies_of(episode)) == 3 for episode in events)
    figures = batched.stats.summary()
    assert figures["generate_calls"] == 3 and figures["mean_batch_size"] == 8.0


def test_a_straggler_does_not_hold_the_others(policy):
    """One episode's first sandbox step takes 4 s, the others' 0.2-0.35 s: the others' later turns go out without
    it, long before it submits, without waiting for max_wait_s (the straggler rule releases them, not the bound)."""
    slow_s = 4.0
    batched = BatchedPolicy(policy, max_batch=8, max_wait_s=30.0)
    events = run_episodes(batched, count=4, turns=3, setup_s=lambda index: 0.2 + 0.05 * index,
                          pause_s=lambda index, turn: slow_s if (index, turn) == (0, 0) else 0.2 + 0.05 * index)

    assert all(len(replies_of(episode)) == 3 for episode in events)
    slow_submitted = next(event[2] for event in events[0] if event[:2] == ("submit", 1))
    others_done = max(event[3] for episode in events[1:] for event in episode if event[0] == "reply")
    assert others_done < slow_submitted - slow_s / 2, "the fast episodes waited for the straggler"
    # Its turns went out alone: turn 1 of all four, then the three fast episodes' turns 2 and 3, then its own two.
    assert batched.stats.generate_calls == 5


class FailingBackend:
    """The real tiny policy, whose `fail_on`-th batch fails (as a model running out of memory would)."""

    def __init__(self, policy, fail_on: int) -> None:
        self.policy, self.fail_on, self.calls, self.batch_sizes = policy, fail_on, 0, []
        self.name = policy.name

    def generate_batch(self, requests):
        self.calls += 1
        self.batch_sizes.append(len(requests))
        if self.calls == self.fail_on:
            raise RuntimeError("CUDA out of memory (batch of %d)" % len(requests))
        return self.policy.generate_batch(requests)


def test_a_failed_call_fails_every_episode_of_its_batch(policy):
    backend = FailingBackend(policy, fail_on=2)
    batched = BatchedPolicy(backend, max_batch=8)
    events = run_episodes(batched, count=4, turns=3, setup_s=lambda index: 0.1 + 0.02 * index,
                          pause_s=lambda index, turn: 0.1 + 0.02 * index)

    errors = [event[2] for episode in events for event in episode if event[0] == "error"]
    assert len(errors) == 4 and len({id(error) for error in errors}) == 1  # the one failure, in every episode
    assert "out of memory" in str(errors[0])
    assert all([event[:2] for event in episode] == [("submit", 0), ("reply", 0), ("submit", 1), ("error", 1)]
               for episode in events)
    assert backend.batch_sizes == [4, 4]


def test_pacing_waits_for_usual_work_and_drops_stragglers():
    from sandmle.generation.pacing import TurnPacing

    pacing = TurnPacing(margin=2.0, grace_s=0.05)
    pacing.announce(3, now=0.0)
    for episode in "abc":
        pacing.start(episode, now=0.01)
    assert pacing.wait_until() == pytest.approx(0.05)  # nothing observed yet: the grace only
    pacing.submit("a", now=0.2)
    assert pacing.wait_until() == pytest.approx(0.0 + 2 * 0.2 + 0.05)  # b and c: setup counted from the announcement
    pacing.submit("b", now=0.3)
    pacing.submit("c", now=0.35)
    for episode in "abc":
        pacing.answer(episode, now=1.0)
    pacing.submit("a", now=1.1)
    # Steps borrow the setups' times while fewer than 8 steps are known: p90 of (0.2, 0.3, 0.35, 0.1) is 0.35.
    assert pacing.typical_s("step") == pytest.approx(0.35)
    assert pacing.wait_until() == pytest.approx(1.0 + 2 * 0.35 + 0.05)
    for number in range(20):  # many short steps: the usual step is short, and b, c are now stragglers
        pacing.answer("a", now=2.0 + number)
        pacing.submit("a", now=2.01 + number)
    assert pacing.typical_s("step") == pytest.approx(0.01)
    assert pacing.wait_until() == pytest.approx(1.0 + 2 * 0.01 + 0.05)
    pacing.end("b")
    pacing.end("c")
    assert pacing.wait_until() is None


def test_rollout_batch_batches_turns_through_the_sandbox(tmp_path, policy):
    _, summary = batched_rollout_on_two_tasks(tmp_path, policy, seed=3)
    for key in ("tokens_per_s", "generation_s", "sandbox_s", "wait_s"):
        assert summary[key] >= 0.0


def test_decoding_reads_grouped_heads_once_and_hands_the_model_back(policy):
    """Decoding steps run through grouped_sdpa_attention (one pass over each key/value head for its query heads, under
    the padding mask), which gives transformers' sdpa result; the model keeps sdpa outside sampling (a trainer's)."""
    import torch

    from sandmle.agents.policies.hf_sampling import GROUPED_SDPA, grouped_query_attention

    model = policy.model
    seen: list[str] = []
    hook = model.register_forward_pre_hook(lambda module, args: seen.append(module.config._attn_implementation))
    try:
        policy.generate_batch([(conversation(1), SamplingParams(max_tokens=3, seed=1)),
                               (conversation(4), SamplingParams(max_tokens=3, seed=2))])
    finally:
        hook.remove()
    assert seen and set(seen) == {GROUPED_SDPA} and model.config._attn_implementation == "sdpa"

    prompts = [policy.prompt_ids(conversation(1)), policy.prompt_ids(conversation(4))]
    width = max(map(len, prompts))
    ids = torch.tensor([[0] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    with torch.no_grad():
        past = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True).past_key_values
        step = dict(input_ids=torch.tensor([[5], [7]]), attention_mask=torch.cat([mask, torch.ones(2, 1, dtype=torch.long)], 1),
                    position_ids=positions[:, -1:] + 1)
        import copy

        expected = model(**step, past_key_values=copy.deepcopy(past)).logits
        with grouped_query_attention(model):
            grouped = model(**step, past_key_values=past).logits
    assert torch.allclose(grouped, expected, atol=1e-5)
