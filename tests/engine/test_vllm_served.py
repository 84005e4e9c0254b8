"""A model served by vLLM (its CPU build, started by the session's vllm_server fixture) through a rollout batch and a
two-scaffold campaign with `openai:`: every reply carries the token ids vLLM sampled and their logprobs."""

from __future__ import annotations

import os

import pytest

from sandmle.agents import SamplingParams
from sandmle.episodes.runner import EpisodeConfig, run_batch, summarize
from sandmle.generation import GenerationStats
from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = [pytest.mark.torch, pytest.mark.vllm]


def test_rollout_batch_records_the_served_tokens(tmp_path, vllm_server):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tasks = [make_bundle(tmp_path / "a", kind="binary"), make_bundle(tmp_path / "b", kind="binary", seed=1)]
    stats = GenerationStats()
    config = EpisodeConfig(max_turns=2, seed=1, sampling=SamplingParams(max_tokens=12))
    trajectories = run_batch(tasks, scaffold="react", policy_spec=vllm_server.policy_spec, samples=2, concurrency=4,
                             config=config, stats=stats)
    summary = summarize(trajectories, stats=stats)

    assert len(trajectories) == 4 and all(t.error is None for t in trajectories), [t.error for t in trajectories]
    replies = [turn for t in trajectories for turn in t.turns if turn["role"] == "assistant"]
    assert summary["generate_calls"] == len(replies) and summary["mean_batch_size"] >= 1.0
    assert summary["tokens_per_s"] > 0
    tokenizer = AutoTokenizer.from_pretrained(str(vllm_server.checkpoint))
    model = AutoModelForCausalLM.from_pretrained(str(vllm_server.checkpoint)).eval()
    for trajectory in trajectories:
        assert trajectory.tokens and len(trajectory.tokens) == sum(t["role"] == "assistant" for t in trajectory.turns)
        for record in trajectory.tokens:
            prompt, completion, logprobs = record["prompt_ids"], record["completion_ids"], record["logprobs"]
            assert prompt and 1 <= len(completion) <= 12 and len(logprobs) == len(completion)
            # The served ids are the model's own: one forward pass over them gives the logprobs vLLM sampled with.
            with torch.no_grad():
                log_probs = torch.log_softmax(model(input_ids=torch.tensor([prompt + completion])).logits[0], dim=-1)
            expected = [float(log_probs[len(prompt) + i - 1, token]) for i, token in enumerate(completion)]
            assert logprobs == pytest.approx(expected, abs=0.05)
        first = next(turn for turn in trajectory.turns if turn["role"] == "assistant")
        assert first["text"].strip() in tokenizer.decode(trajectory.tokens[0]["completion_ids"], skip_special_tokens=True)


def test_two_scaffold_campaign_of_a_served_model(tmp_path, vllm_server):
    from sandmle.evaluation.campaign import CampaignSpec, read_episodes, run_campaign

    task = make_bundle(tmp_path / "task", kind="binary")
    spec = CampaignSpec(policies=[vllm_server.policy_spec], scaffolds=["react", "aide"], tasks=[task], seeds=2,
                        max_turns=2, max_tokens=12, time_budget_s=300.0)
    report = run_campaign(spec, tmp_path / "campaign", concurrency=2)

    assert report["complete"] and report["episodes"] == 4
    figures = report["generation"][vllm_server.policy_spec]
    assert figures["generate_calls"] >= 4 and figures["tokens_per_s"] > 0 and "sandbox_s" in figures
    episodes = read_episodes(tmp_path / "campaign")
    assert {episode["scaffold"] for episode in episodes} == {"react", "aide"}
    for episode in episodes:
        trajectory = episode["trajectory"]
        assert trajectory["error"] is None, trajectory["error"]
        assert trajectory["tokens"], "the served model's token ids are recorded"
        assert all(record["completion_ids"] and len(record["logprobs"]) == len(record["completion_ids"])
                   for record in trajectory["tokens"])


def test_an_annealed_schedule_is_sampled_by_the_server_and_its_logprobs_are_the_sampled_ones(vllm_server):
    """The server runs sandmle's logits processor: each token at its scheduled temperature, processed logprobs."""
    import torch
    from transformers import AutoModelForCausalLM

    from sandmle.agents import make_policy
    from sandmle.agents.policies.schedule import temperature_at

    policy = make_policy(vllm_server.policy_spec)
    sampling = SamplingParams(max_tokens=10, seed=6, ead=True, ead_warmup_tokens=2, ead_decay=4.0, ead_tau_min=0.5)
    reply = policy.generate([{"role": "user", "content": "Fit a model."}], sampling=sampling)
    prompt, completion = reply.prompt_ids, reply.completion_ids
    assert completion and len(reply.logprobs) == len(completion)
    model = AutoModelForCausalLM.from_pretrained(str(vllm_server.checkpoint)).eval()
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt + completion])).logits[0]
    annealed = [float(torch.log_softmax(logits[len(prompt) + i - 1] / temperature_at(i, sampling), dim=-1)[token])
                for i, token in enumerate(completion)]
    assert reply.logprobs == pytest.approx(annealed, abs=0.05)
    if len(completion) > 4:
        flat = [float(torch.log_softmax(logits[len(prompt) + i - 1], dim=-1)[token]) for i, token in enumerate(completion)]
        assert max(abs(a - b) for a, b in zip(annealed[3:], flat[3:])) > 0.05
