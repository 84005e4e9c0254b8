"""GRPO in SandMLE's released dialect (react, dialect=sandmle): a tiny Qwen3 choosing among replies in that dialect
trains through the sandbox, and its stored trajectories hold the dialect's prompts with token ids on every turn."""

from __future__ import annotations

import json
import os

import pytest

from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def test_grpo_trains_in_the_sandmle_dialect_with_token_ids_on_every_turn(tmp_path):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from transformers import AutoTokenizer

    from sandmle.agents.policies.menu import SANDMLE_TABULAR_REPLY_MENU
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint", reply_menu=SANDMLE_TABULAR_REPLY_MENU)
    task = make_bundle(tmp_path / "tasks", kind="regression")
    config = load_train_config({"model": str(checkpoint), "tasks": [str(task)], "output_dir": str(tmp_path / "run"),
                                "group_size": 4, "tasks_per_step": 1, "steps": 3, "max_turns": 3,
                                "max_tokens": 12, "save_every": 2, "learning_rate": 1e-3, "concurrency": 2,
                                "seed": 1},
                               ["scaffold_options.dialect=sandmle"])
    assert config.scaffold_options == {"dialect": "sandmle"}
    lines = []
    result = train_grpo(config, on_step=lines.append)
    assert result["steps_done"] == 3 and result["failures"]["failed"] == 0
    # The checkpoint records what it was trained with.
    from sandmle.rl.provenance import read_provenance

    assert read_provenance(f"hf:{result['checkpoints'][-1]}") == {
        "kind": "grpo", "scaffold": "react", "scaffold_options": {"dialect": "sandmle", "output_lines": 20},
        "feedback": "score", "saw_test_scores": False, "preset": None, "reward": "dense"}

    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
    trajectories = [json.loads(line) for step in lines for line in open(step["trajectories"])]
    assert len(trajectories) == 12
    tools_seen = set()
    for trajectory in trajectories:
        assert trajectory["extra"]["scaffold_options"] == {"dialect": "sandmle", "output_lines": 20}
        replies = [turn for turn in trajectory["turns"] if turn["role"] == "assistant"]
        assert replies and all(turn["prompt_ids"] and turn["completion_ids"] for turn in replies)
        first_prompt = tokenizer.decode(replies[0]["prompt_ids"])
        assert "<tool_call>" in first_prompt and "REPLY FORMAT: react" not in first_prompt  # the released prompt
        for turn in replies:
            assert turn["text"] in SANDMLE_TABULAR_REPLY_MENU
            assert tokenizer.decode(turn["completion_ids"]).startswith(turn["text"])
        for later in replies[1:]:  # each later prompt continues the earlier reply with a <tool_response> message
            assert "<tool_response>" in tokenizer.decode(later["prompt_ids"])
        tools_seen |= {turn["kind"] for turn in trajectory["turns"] if turn["role"] == "tool"}
        sequence = trajectory["sequence"]
        assert len(sequence["ids"]) == len(sequence["mask"]) and sum(sequence["mask"]) == len(replies)
    assert {"python"} <= tools_seen
    written = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert all(line["tokens"] > 0 for line in written)
    # A step whose group's rewards differ has a gradient (seed 1: the third step's group does).
    spread = [len({round(t["rewards"]["dense"]["total"], 6) for t in trajectories[4 * i: 4 * i + 4]}) > 1
              for i in range(3)]
    assert any(spread) and all((line["grad_norm"] > 0) == differ for line, differ in zip(written, spread))
