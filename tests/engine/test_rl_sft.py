"""The SFT baseline: export filters, SFT steps whose loss covers the assistant's tokens only, a checkpoint hf: runs."""

from __future__ import annotations

import json
import os

import pytest

from sandmle.cli import main
from sandmle.rl.sft import export_sft_dataset

os.environ.setdefault("OMP_NUM_THREADS", "1")


def trajectory(task, *, scaffold="react", policy="hf:a", reward=0.5, milestone="bronze", valid=True):
    messages = [{"role": "system", "content": "Solve."}, {"role": "user", "content": "Predict."},
                {"role": "assistant", "content": "<think>look</think><python>print(1)</python>"},
                {"role": "user", "content": "<observation>\n1\n</observation>"}]
    turns = [{"role": "assistant", "text": messages[2]["content"], "messages": messages[:2]},
             {"role": "tool", "observation": "1"},
             {"role": "assistant", "text": "<answer>submission.csv</answer>", "messages": messages}]
    return {"task_id": task, "scaffold": scaffold, "policy": policy, "turns": turns,
            "grade": {"valid_submission": valid, "milestone": milestone}, "rewards": {"dense": {"total": reward}}}


RUNS = [trajectory("a"), trajectory("b", reward=0.1, milestone="none"), trajectory("c", scaffold="aide"),
        trajectory("d", policy="baseline", milestone="gold", reward=0.9), trajectory("e", valid=False, reward=0.02)]


def test_export_filters_and_writes_the_conversation(tmp_path):
    out = tmp_path / "sft.jsonl"
    assert export_sft_dataset(RUNS, out) == 5
    first = json.loads(out.read_text().splitlines()[0])
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant", "user", "assistant"]
    assert first["messages"][-1]["content"] == "<answer>submission.csv</answer>"
    assert export_sft_dataset(RUNS, out, min_reward=0.4) == 3
    assert export_sft_dataset(RUNS, out, milestone="bronze") == 3
    assert export_sft_dataset(RUNS, out, milestone="gold") == 1
    assert export_sft_dataset(RUNS, out, scaffold="aide") == 1
    assert export_sft_dataset(RUNS, out, policy="baseline", min_reward=0.5) == 1
    source = tmp_path / "runs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in RUNS))
    assert main(["sft-export", str(source), "--out", str(out), "--min-reward", "0.4", "--scaffold", "react"]) == 0
    assert [json.loads(line)["task_id"] for line in out.read_text().splitlines()] == ["a", "d"]
    assert main(["sft-export", str(source), "--out", str(out), "--milestone", "platinum"]) == 2


@pytest.mark.torch
def test_sft_trains_on_assistant_tokens_and_saves_an_hf_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from trl import SFTConfig, SFTTrainer
    from datasets import Dataset

    from sandmle.agents import SamplingParams, make_policy
    from sandmle.rl.config import load_train_config
    from sandmle.rl.sft import train_sft
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint")
    data = tmp_path / "sft.jsonl"
    export_sft_dataset(RUNS, data)
    config = load_train_config({"model": str(checkpoint), "dataset": [str(data)], "output_dir": str(tmp_path / "run"),
                                "steps": 2, "batch_size": 2, "save_every": 2, "learning_rate": 1e-3}, kind="sft")
    lines = []
    result = train_sft(config, on_step=lines.append)
    assert result["steps_done"] == 2 and result["checkpoints"] == [str(tmp_path / "run" / "checkpoint-2")]
    assert [line["step"] for line in lines] == [1, 2] and lines[1]["checkpoint"] == result["checkpoints"][0]
    assert all(line["loss"] > 0 for line in lines)

    # The labels TRL builds: -100 everywhere but the assistant's replies and their end-of-turn tokens.
    policy = make_policy(f"hf:{result['checkpoints'][0]}")
    tokenizer = policy.tokenizer
    probe = SFTTrainer(model=policy.model, processing_class=tokenizer, train_dataset=Dataset.from_list(
        [{"messages": RUNS[0]["turns"][2]["messages"] + [{"role": "assistant", "content": "<answer>x</answer>"}]}]),
        args=SFTConfig(output_dir=str(tmp_path / "probe"), assistant_only_loss=True, report_to="none", use_cpu=True))
    example = probe.train_dataset[0]
    trained = [t for t, label in zip(example["input_ids"], example["labels"]) if label != -100]
    text = tokenizer.decode(trained)
    assert "<think>look</think>" in text and "<answer>x</answer>" in text
    assert "Solve." not in text and "<observation>" not in text and "Predict." not in text

    reply = policy.generate([{"role": "user", "content": "Predict."}], sampling=SamplingParams(max_tokens=4, seed=1))
    assert 1 <= len(reply.completion_ids) <= 4
