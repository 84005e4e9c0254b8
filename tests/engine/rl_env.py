"""A tiny training environment for the GRPO wiring tests: one reply per episode, rewarded only for what it writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandmle.agents.policies.base import SamplingParams
from sandmle.episodes.runner import flatten_tokens, token_records
from sandmle.episodes.trajectory import Trajectory

TARGET_SHARE_OF_VOCAB = 0.5  # the rewarded tokens: the lower half of the vocabulary (about half at random init)


def make_dummy_tasks(root: Path, count: int) -> list[str]:
    dirs = []
    for index in range(count):
        (root / f"task{index}" / "public").mkdir(parents=True, exist_ok=True)
        dirs.append(str(root / f"task{index}"))
    return dirs


def written_token_episode(task_dir, *, scaffold, policy, config, pool, sample_index, group_id, vocab_size=400):
    """Reward = share of the reply's tokens from the rewarded set; the record has the runner's token layout."""
    sampling = SamplingParams(**{**config.sampling.to_dict(), "seed": config.seed + sample_index})
    reply = policy.generate([{"role": "user", "content": f"Write for {Path(task_dir).name}."}], sampling=sampling)
    hits = sum(token < vocab_size * TARGET_SHARE_OF_VOCAB for token in reply.completion_ids)
    trajectory = Trajectory(task_id=Path(task_dir).name, scaffold=scaffold, policy=policy.name,
                            sample_index=sample_index, group_id=group_id, termination="answered")
    trajectory.turns = [{"role": "assistant", "prompt_ids": reply.prompt_ids, "completion_ids": reply.completion_ids,
                         "logprobs": reply.logprobs}]
    trajectory.tokens = token_records(trajectory.turns)
    trajectory.sequence = flatten_tokens(trajectory.tokens)
    share = hits / max(1, len(reply.completion_ids))
    trajectory.rewards = {"dense": {"total": share, "components": {"written_tokens": share}}}
    return trajectory


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """The tiny random Qwen3 of the GRPO wiring tests, built once per module (import it as a fixture)."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("rl-tiny") / "checkpoint")
