"""SFT in SandMLE's dialect: real react episodes in dialect=sandmle export as the conversations the policy saw
(<tool_call> replies, <tool_response> observations), and TRL's SFTTrainer trains on exactly their replies."""

from __future__ import annotations

import json

import pytest

from sandmle.cli import main
from sandmle.episodes.runner import EpisodeConfig, run_episode
from sandmle.rl.sft import export_sft_dataset
from tests.engine.rollout_bundles import COPY_SAMPLE, ScriptedPolicy, make_bundle

SANDMLE_REPLIES = ["<think>copy</think>\n<tool_call>\npython\n<code>\n" + COPY_SAMPLE + "</code>\n</tool_call>",
                   '<think>grade</think>\n<tool_call>\n{"name": "Score", "arguments": {"competition_id": "t"}}\n'
                   "</tool_call>", "<think>done</think>\n<answer>submission</answer>"]
STUDIO_REPLIES = [f"<think>copy</think><python>{COPY_SAMPLE}</python>", "<think>done</think><answer>submission.csv</answer>"]


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory):
    root = tmp_path_factory.mktemp("episodes")
    task = make_bundle(root, kind="binary")
    found = []
    for index, (replies, options) in enumerate([(SANDMLE_REPLIES, {"dialect": "sandmle"}), (STUDIO_REPLIES, {})]):
        config = EpisodeConfig(feedback="score", max_turns=4, scaffold_options=options)
        found.append(run_episode(task, scaffold="react", policy=ScriptedPolicy(list(replies)), config=config,
                                 workdir=root / f"w{index}").to_dict())
    assert all(t["error"] is None and t["termination"] == "answered" for t in found)
    return found


def test_export_writes_the_dialect_the_run_will_train_in(tmp_path, trajectories):
    out = tmp_path / "sft.jsonl"
    assert export_sft_dataset(trajectories, out, scaffold_options={"dialect": "sandmle"}) == 1
    messages = json.loads(out.read_text())["messages"]
    assert "<tool_call>" in messages[0]["content"] and messages[0]["role"] == "system"
    assert [m["content"] for m in messages if m["role"] == "assistant"] == [r.strip() for r in SANDMLE_REPLIES]
    assert all(m["content"].startswith("<tool_response>") for m in messages[2:] if m["role"] == "user")
    assert export_sft_dataset(trajectories, out, scaffold_options={"dialect": "studio"}) == 1
    assert "<tool_response>" not in out.read_text()
    assert export_sft_dataset(trajectories, out) == 2  # no dialect asked: every conversation, as before
    # Without its recorded messages a sandmle episode cannot be rebuilt faithfully: it is left out.
    bare = [{**trajectories[0], "turns": [{**t, "messages": None} for t in trajectories[0]["turns"]]}]
    assert export_sft_dataset(bare, out, scaffold_options={"dialect": "sandmle"}) == 0
    source = tmp_path / "runs.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in trajectories))
    assert main(["sft-export", str(source), "--out", str(out), "--scaffold-option", "dialect=sandmle"]) == 0
    assert len(out.read_text().splitlines()) == 1
    assert main(["sft-export", str(source), "--out", str(out), "--scaffold-option", "dialect=verl"]) == 2


@pytest.mark.torch
def test_a_sandmle_dataset_round_trips_through_the_sft_trainer(tmp_path, trajectories):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    from sandmle.agents import make_policy
    from sandmle.rl.config import load_train_config
    from sandmle.rl.provenance import read_provenance
    from sandmle.rl.sft import train_sft
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint")
    data = tmp_path / "sft.jsonl"
    assert export_sft_dataset(trajectories, data, scaffold_options={"dialect": "sandmle"}) == 1
    config = load_train_config({"model": str(checkpoint), "dataset": [str(data)], "output_dir": str(tmp_path / "run"),
                                "steps": 2, "batch_size": 1, "save_every": 2, "learning_rate": 1e-3,
                                "max_length": 4096, "scaffold_options": {"dialect": "sandmle"}}, kind="sft")
    result = train_sft(config)
    assert result["steps_done"] == 2
    provenance = read_provenance(result["checkpoints"][0])
    assert provenance["scaffold"] == "react" and provenance["scaffold_options"]["dialect"] == "sandmle"

    # TRL's labels: the sandmle replies and nothing of the prompts or tool responses.
    policy = make_policy(f"hf:{result['checkpoints'][0]}")
    messages = json.loads(data.read_text())["messages"]
    probe = SFTTrainer(model=policy.model, processing_class=policy.tokenizer,
                       train_dataset=Dataset.from_list([{"messages": messages}]),
                       args=SFTConfig(output_dir=str(tmp_path / "probe"), assistant_only_loss=True, report_to="none",
                                      use_cpu=True, max_length=4096))
    example = probe.train_dataset[0]
    trained = policy.tokenizer.decode([t for t, label in zip(example["input_ids"], example["labels"]) if label != -100])
    assert all(reply.strip() in trained for reply in SANDMLE_REPLIES)
    assert "<tool_response>" not in trained and "seasoned Kaggle competitor" not in trained
