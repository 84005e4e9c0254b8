"""Every scaffold's episode of a real (tiny, random) Qwen3 keeps its token sequence: a prompt that continues an
earlier reply starts with that reply's prompt and sampled ids, in ReAct's studio and SandMLE dialects alike (issue
46: a SandMLE reply without a tool call, or one the scaffold trimmed, made the next prompt re-render the chat from
text, and GRPO masked the whole episode)."""

from __future__ import annotations

import os

import pytest

from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch

SAMPLES = 4
# (scaffold, options): the chat scaffolds whose replies all continue one conversation, so one sequence must exist.
CHAT_SCAFFOLDS = [("react", {"dialect": "studio"}), ("react", {"dialect": "sandmle"}),
                  ("mle_agent", {"repair_attempts": 0})]
# Tree search and repair calls ask fresh conversations (no single sequence); a continued one must still keep its ids.
OTHER_SCAFFOLDS = [("aide", {}), ("aira", {}), ("mle_agent", {})]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    pytest.importorskip("torch").set_num_threads(1)
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "ckpt")


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("tasks"), kind="regression")


def episodes(checkpoint, task, scaffold: str, options: dict, samples: int) -> list[dict]:
    from sandmle.agents import make_policy
    from sandmle.agents.policies import SamplingParams
    from sandmle.episodes.runner import EpisodeConfig, run_episode

    policy = make_policy(f"hf:{checkpoint}")  # one policy for the group, as a GRPO step samples it
    config = EpisodeConfig(max_turns=3, sampling=SamplingParams(max_tokens=16), scaffold_options=options)
    return [run_episode(task, scaffold=scaffold, policy=policy, config=config, sample_index=index).to_dict()
            for index in range(samples)]


def replies(trajectory: dict) -> list[dict]:
    return [turn for turn in trajectory["turns"] if turn["role"] == "assistant" and turn["completion_ids"] is not None]


def assert_sequence_is_the_episode(trajectory: dict) -> None:
    sequence = trajectory["sequence"]
    ids, mask = sequence["ids"], sequence["mask"]
    assert len(ids) == len(mask) == len(sequence["logprobs"])
    expected_mask = [0] * len(ids)
    for reply in replies(trajectory):
        prompt, completion = reply["prompt_ids"], reply["completion_ids"]
        assert ids[: len(prompt)] == prompt
        assert ids[len(prompt): len(prompt) + len(completion)] == completion
        sampled = reply["completion_mask"] or [1] * len(completion)
        expected_mask[len(prompt): len(prompt) + len(completion)] = sampled
    last = replies(trajectory)[-1]
    assert len(ids) == len(last["prompt_ids"]) + len(last["completion_ids"])
    assert mask == expected_mask  # 1 on sampled tokens only: never on observations or chat markup


@pytest.mark.parametrize("scaffold,options", CHAT_SCAFFOLDS, ids=lambda value: str(value))
def test_every_chat_episode_is_one_token_sequence(checkpoint, task, scaffold, options):
    trajectories = episodes(checkpoint, task, scaffold, options, SAMPLES)
    for trajectory in trajectories:
        assert trajectory["error"] is None
        if not replies(trajectory):
            continue
        assert trajectory["sequence"] is not None, (scaffold, options, trajectory["termination"])
        assert_sequence_is_the_episode(trajectory)
    if options.get("dialect"):
        assert all(len(replies(t)) == 3 for t in trajectories)  # three turns each: the later prompts were exercised


@pytest.mark.parametrize("scaffold,options", OTHER_SCAFFOLDS, ids=lambda value: str(value))
def test_a_continued_conversation_keeps_the_sampled_ids(checkpoint, task, scaffold, options):
    for trajectory in episodes(checkpoint, task, scaffold, options, 2):
        turns = replies(trajectory)
        for later in turns:
            for earlier in turns:
                shown = earlier["messages"]
                continues = (len(later["messages"]) > len(shown) and later["messages"][: len(shown)] == shown
                             and later["messages"][len(shown)]["role"] == "assistant")
                if continues:
                    expected = earlier["prompt_ids"] + earlier["completion_ids"]
                    assert later["prompt_ids"][: len(expected)] == expected
        if trajectory["sequence"] is not None:
            assert_sequence_is_the_episode(trajectory)


def test_a_reply_asked_again_or_shown_trimmed_keeps_its_sampled_ids(checkpoint):
    from sandmle.agents import make_policy
    from sandmle.agents.policies import SamplingParams

    policy = make_policy(f"hf:{checkpoint}")
    asked = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Train a model."}]
    first, second = (policy.generate(asked, sampling=SamplingParams(max_tokens=12, seed=seed)) for seed in (1, 2))
    for reply in (first, second):  # two samples of a group share the prompt; each continues its own ids
        sampled = reply.prompt_ids + reply.completion_ids
        shown = [{"role": "assistant", "content": f"  {reply.text}\n"}]
        again = policy.prompt_ids(asked + [{"role": "assistant", "content": reply.text}])
        trimmed = policy.prompt_ids(asked + [{"role": "assistant", "content": reply.text.strip()},
                                             {"role": "user", "content": "<tool_response>\nok\n</tool_response>"}])
        assert again[: len(sampled)] == sampled and len(again) > len(sampled)
        assert trimmed[: len(sampled)] == sampled and len(trimmed) > len(again)
        assert policy.prompt_ids(asked + shown)[: len(sampled)] == sampled
    assert policy.prompt_ids(asked) == first.prompt_ids  # a new conversation is rendered as before
