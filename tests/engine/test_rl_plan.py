"""`sandmle grpo --plan`: what a run will need, from its settings and MODEL/config.json alone. The paper's preset on
8 processes trains 8 episodes a process in 4 micro-batches of 2 (bf16, gradient checkpointing); on the README's 7 training processes the step does
not split and the plan says so with process_split's refusal (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sandmle.cli import main
from sandmle.rl.config import load_train_config
from sandmle.rl.plan import count_params, model_shape, plan_run, training_processes

# Qwen3-8B's config.json dimensions (huggingface.co/Qwen/Qwen3-8B): 8.2B parameters.
QWEN3_8B = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
            "num_hidden_layers": 36, "intermediate_size": 12288, "vocab_size": 151936, "num_attention_heads": 32,
            "num_key_value_heads": 8, "head_dim": 128, "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
GIB = 1 << 30


@pytest.fixture
def qwen3_8b(tmp_path):
    model = tmp_path / "Qwen3-8B"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(QWEN3_8B))  # no weights, no tokenizer: nothing could load
    return model


def paper(model, *overrides):
    return load_train_config({"preset": "sandmle-paper", "model": str(model), "tasks": ["bundle"],
                              "output_dir": "runs/plan"}, list(overrides)).values


def test_qwen3_8b_parameter_count():
    assert count_params(QWEN3_8B) == pytest.approx(8.2e9, rel=0.05)
    # A mixture of experts counts every expert (Qwen3-30B-A3B: 30.5B in all).
    moe = {**QWEN3_8B, "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 32,
           "num_key_value_heads": 4, "num_experts": 128, "moe_intermediate_size": 768, "intermediate_size": 6144}
    assert count_params(moe) == pytest.approx(30.5e9, rel=0.05)


def test_the_paper_preset_on_eight_processes(qwen3_8b, monkeypatch):
    values = paper(qwen3_8b)
    plan = plan_run(values, processes=8)
    assert plan.runs and plan.problem is None
    assert (plan.episodes, plan.episodes_per_process, plan.micro_batch) == (64, 8, 2)
    assert plan.longest_sequence == 32768 + 32768  # context_tokens + min(max_tokens, max_episode_tokens)
    assert plan.model.params == pytest.approx(8.2e9, rel=0.05)

    # The accumulation the trainer would use: trainer_args on 8 processes.
    import sandmle.rl.grpo as grpo

    monkeypatch.setattr(grpo, "check_step_split", lambda config: 8)
    args = grpo.trainer_args(load_train_config(values))
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps) == (plan.micro_batch, 4)
    assert plan.accumulation == args.gradient_accumulation_steps

    params = plan.model.params
    zero3, ddp = plan.memory["zero3"], plan.memory["ddp"]
    assert zero3.weights + zero3.gradients + zero3.optimizer == pytest.approx(16 * params / 8)
    assert ddp.weights + ddp.gradients + ddp.optimizer == pytest.approx(8 * params)  # the preset trains in bf16
    assert ddp.weights == pytest.approx(2 * params)
    assert zero3.activations == pytest.approx(2 * 65536 * 4096 * (2 * 36 + 34))  # with gradient checkpointing
    assert zero3.logits == pytest.approx(2 * 32768 * 151936 * 2)

    untuned = plan_run(paper(qwen3_8b, "bf16=false", "gradient_checkpointing=false", "micro_batch_size=4"),
                       processes=8)
    assert untuned.accumulation == 2
    assert untuned.memory["ddp"].weights + untuned.memory["ddp"].gradients + untuned.memory["ddp"].optimizer == \
        pytest.approx(16 * params)  # fp32
    assert untuned.memory["zero3"].activations == pytest.approx(4 * 65536 * 4096 * 36 * 34)
    assert untuned.memory["zero3"].total > zero3.total


def test_the_paper_preset_on_seven_processes_is_refused(qwen3_8b):
    plan = plan_run(paper(qwen3_8b), processes=7)
    assert not plan.runs and plan.accumulation is None
    assert plan.problem.startswith("tasks_per_step: 16 groups of 4 episodes do not split evenly over 7 training")
    assert plan.problem.endswith("use tasks_per_step 14 or 21 on 7 processes, or 4 or 8 processes for "
                                 "tasks_per_step 16")
    assert plan_run(paper(qwen3_8b, "tasks_per_step=14"), processes=7).accumulation == 4


def test_processes_from_the_flag_or_the_launch():
    assert training_processes(3, {"WORLD_SIZE": "8"}) == 3
    assert training_processes(None, {"WORLD_SIZE": "8", "ACCELERATE_NUM_PROCESSES": "2"}) == 8
    assert training_processes(None, {"ACCELERATE_NUM_PROCESSES": "7"}) == 7
    assert training_processes(None, {}) == 1


def test_params_without_a_config_json(tmp_path):
    assert model_shape(tmp_path / "absent") is None
    shape = model_shape(tmp_path / "absent", 8e9)
    assert shape.params == 8e9 and shape.hidden_size is None
    plan = plan_run(paper(tmp_path / "absent"), processes=8, params=8e9)
    assert plan.memory["zero3"].activations is None
    assert plan.memory["zero3"].weights == pytest.approx(2 * 8e9 / 8)


def plan_cli(capsys, model, *flags):
    status = main(["grpo", "--preset", "sandmle-paper", "--set", f"model={model}", "--set", "tasks=[bundle]",
                   "--set", "output_dir=runs/plan", "--plan", *flags])
    return status, capsys.readouterr().out


def test_the_cli_prints_the_plan_loading_no_model(qwen3_8b, capsys, monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.delenv("ACCELERATE_NUM_PROCESSES", raising=False)
    status, out = plan_cli(capsys, qwen3_8b, "--processes", "8")
    assert status == 0
    lines = out.splitlines()
    assert "processes: 8" in lines and "episodes a step: 64 (4 x 16 tasks)" in lines
    assert "episodes a process: 8" in lines and "micro-batch: 2" in lines
    assert "gradient accumulation: 4" in lines and "longest sequence: 65536 tokens" in lines
    assert any(line.startswith("memory a process, zero3: ") for line in lines)
    assert lines[-1] == "the step splits over 8 processes"
    # bf16 and checkpointing, yet 2 x 65536 tokens' activations and logits still pass 80 GiB (no padding removal)
    assert lines[-2].startswith("warning: no sharding fits 80 GiB")

    status, out = plan_cli(capsys, qwen3_8b, "--processes", "7")
    assert status == 2
    assert out.splitlines()[-1].startswith("refused: tasks_per_step: 16 groups of 4 episodes do not split evenly "
                                           "over 7 training processes")

    monkeypatch.setenv("WORLD_SIZE", "7")
    assert plan_cli(capsys, qwen3_8b)[0] == 2
    status, out = plan_cli(capsys, qwen3_8b, "--set", "tasks_per_step=14")
    assert status == 0 and "episodes a step: 56 (4 x 14 tasks)" in out


def test_the_plan_imports_no_torch(qwen3_8b, tmp_path):
    """In a fresh interpreter: the plan neither imports torch, transformers nor TRL, nor opens more than config.json
    (the model folder holds nothing else to load)."""
    script = (f"import sys; from sandmle.cli import main; status = main(['grpo', '--preset', 'sandmle-paper', "
              f"'--set', 'model={qwen3_8b}', '--set', 'tasks=[bundle]', '--set', 'output_dir={tmp_path / 'run'}', "
              f"'--plan', '--processes', '8']); "
              f"print(sorted({{'torch', 'transformers', 'trl'}} & set(sys.modules))); sys.exit(status)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    assert "the step splits over 8 processes" in done.stdout
    assert sorted(p.name for p in qwen3_8b.iterdir()) == ["config.json"] and not (tmp_path / "run").exists()


def test_the_cli_without_a_model_shape(tmp_path, capsys):
    status, out = plan_cli(capsys, tmp_path / "absent", "--processes", "8")
    assert status == 0 and "memory: unknown (no MODEL/config.json here: give --params COUNT)" in out
    status, out = plan_cli(capsys, tmp_path / "absent", "--processes", "8", "--params", "8e9")
    assert status == 0 and "parameters: 8e+09 (from --params)" in out
    assert "at least" in out
