"""`hf:PATH` on vLLM's in-process engine (the path a rollout batch or campaign takes on a GPU worker with vLLM; here
vLLM's CPU build, asked for with SANDMLE_HF_ENGINE=vllm): which engine a checkpoint gets, and a rollout batch through
it that records vLLM's sampled ids and logprobs and names the engine in its summary."""

from __future__ import annotations

import os

import pytest

from sandmle.agents import make_policy
from sandmle.agents.policies.vllm_engine import choose_engine
from sandmle.errors import UsageError
from tests.engine.rollout_bundles import batched_rollout_on_two_tasks

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = [pytest.mark.torch]


def test_choose_engine(tmp_path, monkeypatch):
    import importlib.util

    import torch

    monkeypatch.delenv("SANDMLE_HF_ENGINE", raising=False)
    installed = importlib.util.find_spec("vllm") is not None
    assert choose_engine(tmp_path) == ("vllm" if installed and torch.cuda.is_available() else "hf")
    assert choose_engine(tmp_path, "hf") == "hf"
    monkeypatch.setenv("SANDMLE_HF_ENGINE", "hf")
    assert choose_engine(tmp_path) == "hf"
    with pytest.raises(UsageError, match="expected one of auto, hf, vllm"):
        choose_engine(tmp_path, "tensorrt")
    if installed:
        assert choose_engine(tmp_path, "vllm") == "vllm"
    else:
        with pytest.raises(UsageError, match="not installed"):
            choose_engine(tmp_path, "vllm")
    (tmp_path / "adapter_config.json").write_text("{}")  # a LoRA adapter: vLLM loads full checkpoints only
    monkeypatch.setenv("SANDMLE_HF_ENGINE", "vllm")
    assert choose_engine(tmp_path) == "hf"


@pytest.mark.vllm
def test_an_hf_checkpoint_runs_a_rollout_batch_on_the_vllm_engine(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("vllm")
    from transformers import AutoModelForCausalLM

    from sandmle.rl.tiny_model import VLLM_CPU_HEAD_DIM, build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint", head_dim=VLLM_CPU_HEAD_DIM)
    monkeypatch.setenv("SANDMLE_HF_ENGINE", "vllm")
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "1")
    policy = make_policy(f"hf:{checkpoint}")
    assert policy.engine == "vllm"
    trajectories, summary = batched_rollout_on_two_tasks(tmp_path, policy, seed=2)
    assert summary["engine"] == "vllm" and summary["tokens_per_s"] > 0  # the batch page and the campaign report show it
    model = AutoModelForCausalLM.from_pretrained(str(checkpoint)).eval()
    for trajectory in trajectories:
        record = trajectory.tokens[0]
        prompt, completion = record["prompt_ids"], record["completion_ids"]
        with torch.no_grad():  # vLLM's logprobs are the checkpoint's own
            log_probs = torch.log_softmax(model(input_ids=torch.tensor([prompt + completion])).logits[0], dim=-1)
        expected = [float(log_probs[len(prompt) + i - 1, token]) for i, token in enumerate(completion)]
        assert record["logprobs"] == pytest.approx(expected, abs=0.05)
    # The annealed schedule on the same engine: the logits processor sets each token's temperature, and the
    # recorded logprobs are those of the distribution each token was drawn from (processed logprobs).
    from sandmle.agents import SamplingParams
    from sandmle.agents.policies.schedule import temperature_at

    sampling = SamplingParams(max_tokens=10, seed=4, ead=True, ead_warmup_tokens=2, ead_decay=4.0, ead_tau_max=1.2,
                              ead_tau_min=0.5)
    reply = policy.generate([{"role": "user", "content": "Fit a model."}], sampling=sampling)
    prompt, completion = reply.prompt_ids, reply.completion_ids
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt + completion])).logits[0]
    schedule = [temperature_at(i, sampling) for i in range(len(completion))]
    annealed = [float(torch.log_softmax(logits[len(prompt) + i - 1] / schedule[i], dim=-1)[token])
                for i, token in enumerate(completion)]
    assert reply.logprobs == pytest.approx(annealed, abs=0.05)
    if len(completion) > 4:  # past the skipped tokens the schedule, not temperature 1, was sampled from
        flat = [float(torch.log_softmax(logits[len(prompt) + i - 1], dim=-1)[token]) for i, token in enumerate(completion)]
        assert max(abs(a - b) for a, b in zip(annealed[3:], flat[3:])) > 0.05
