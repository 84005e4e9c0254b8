"""The reply-menu policy: a reply is one of the menu's, sampled only where the replies part ways (mask 1 there, 0 on
the forced text), its probabilities over the menu sum to one, and a bad menu or a vLLM run on one is refused."""

from __future__ import annotations

import math
import os

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch

MENU = ["<think>Alpha.</think> <answer>submission.csv</answer>", "<think>Beta.</think> <answer>submission.csv</answer>",
        "<think>Gamma plan.</think> <python>print(1)</python>"]
MESSAGES = [{"role": "system", "content": "REPLY FORMAT: react"}, {"role": "user", "content": "Solve the task."}]


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    pytest.importorskip("torch").set_num_threads(1)
    from sandmle.agents import make_policy
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    return make_policy(f"hf:{build_tiny_checkpoint(tmp_path_factory.mktemp('menu'), reply_menu=MENU)}")


def test_replies_come_from_the_menu_with_only_the_choice_sampled(policy):
    import torch

    from sandmle.agents import SamplingParams

    seen = set()
    for seed in range(12):
        reply = policy.generate(MESSAGES, sampling=SamplingParams(seed=seed, max_tokens=4))
        choice = reply.usage["menu_choice"]
        seen.add(choice)
        assert reply.text == MENU[choice] and reply.finish_reason == "stop"
        assert policy.tokenizer.decode(reply.completion_ids, skip_special_tokens=True) == MENU[choice]
        assert reply.completion_ids[-1] == policy.tokenizer.eos_token_id  # max_tokens does not cut a menu reply
        assert sum(reply.completion_mask) == 1 and len(reply.completion_mask) == len(reply.completion_ids)
        position = reply.completion_mask.index(1)
        assert all(lp == 0.0 for i, lp in enumerate(reply.logprobs) if i != position) and reply.logprobs[position] < 0
        # The recorded logprob is the whole vocabulary's (what the trainer recomputes), below the menu's choice's.
        prompt = policy.prompt_ids(MESSAGES) + reply.completion_ids[:position]
        with torch.no_grad():
            logits = policy.model(input_ids=torch.tensor([prompt])).logits[0, -1].float()
        direct = float(torch.log_softmax(logits, dim=-1)[reply.completion_ids[position]])
        assert reply.logprobs[position] == pytest.approx(direct, abs=1e-5)
        assert math.exp(reply.logprobs[position]) < policy.reply_probabilities(MESSAGES)[choice]
    assert seen == {0, 1, 2}


def test_reply_probabilities_sum_to_one_and_follow_the_temperature(policy):
    warm, cold = policy.reply_probabilities(MESSAGES), policy.reply_probabilities(MESSAGES, temperature=0.05)
    assert sum(warm) == pytest.approx(1.0) and sum(cold) == pytest.approx(1.0)
    assert max(cold) > max(warm)


@pytest.mark.parametrize("menu, words", [(["only one"], "at least two"), (["same", "same"], "twice")])
def test_a_bad_menu_is_refused(tmp_path, menu, words):
    from sandmle.agents import make_policy
    from sandmle.errors import UsageError
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    with pytest.raises(UsageError, match=words):
        make_policy(f"hf:{build_tiny_checkpoint(tmp_path / 'bad', reply_menu=menu)}")


def test_a_vllm_run_of_a_menu_checkpoint_is_refused_by_name(tmp_path):
    from sandmle.rl.config import TrainConfig, load_train_config
    from sandmle.rl.grpo import check_paths
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from sandmle.settings import ConfigError

    checkpoint = build_tiny_checkpoint(tmp_path / "menu", reply_menu=MENU)
    config = load_train_config({"model": str(checkpoint), "tasks": [str(tmp_path)],
                                "output_dir": str(tmp_path / "run")})
    # Set after validation: on this CPU machine the config check itself refuses use_vllm (vLLM is not installed).
    config = TrainConfig(kind=config.kind, values={**config.values, "use_vllm": True})
    with pytest.raises(ConfigError) as refused:
        check_paths(config)
    assert refused.value.key == "use_vllm"
