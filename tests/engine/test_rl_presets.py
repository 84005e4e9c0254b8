"""Run presets (sandmle-paper, cpu-smoke) and scaffold options in a training run: a preset applies before the user's
keys, which override it; a bad preset, option or dialect is refused with its key named (CLI exit 2)."""

from __future__ import annotations

import pytest

from sandmle.cli import main
from sandmle.rl.config import load_train_config
from sandmle.rl.presets import RUN_PRESETS, preset_report, preset_values
from sandmle.settings import ConfigError

BASE = {"model": "ckpt", "tasks": ["t1", "t2", "t3"], "output_dir": "out"}


@pytest.mark.parametrize("name", sorted(RUN_PRESETS))
def test_each_preset_loads_validates_and_yields_to_a_user_key(name):
    config = load_train_config({**BASE, "preset": name})
    expected = preset_values(name)
    expected.pop("epochs", None)  # epochs becomes steps
    assert {key: config.values[key] for key in expected} == expected
    assert preset_report(config.values)["changed"] == {} and config.preset == name
    assert load_train_config(config.to_dict()).to_dict() == config.to_dict()  # the resolved config.yaml loads back

    overridden = load_train_config({**BASE, "preset": name, "learning_rate": 0.5}, ["max_turns=2"])
    assert overridden.learning_rate == 0.5 and overridden.max_turns == 2
    report = preset_report(overridden.values)
    assert report["changed"]["learning_rate"] == {"preset": expected["learning_rate"], "run": 0.5}
    assert report["set"]["learning_rate"] == expected["learning_rate"]


def test_the_paper_preset_is_the_authors_recipe_and_its_epochs_set_the_steps():
    config = load_train_config({**BASE, "preset": "sandmle-paper"})
    assert (config.group_size, config.tasks_per_step, config.learning_rate, config.kl_coef, config.clip_low,
            config.clip_high, config.loss_type, config.max_tokens, config.max_turns, config.temperature,
            config.reward, config.feedback) == (4, 16, 1e-6, 0.0, 0.2, 0.28, "grpo", 32768, 15, 1.0, "dense",
                                                "score_answers")
    assert config.scaffold_options == {"dialect": "sandmle", "output_lines": 20}
    assert config.epochs == 20.0 and config.steps == 4  # ceil(20 epochs x 3 tasks / 16 a step)
    user_steps = load_train_config({**BASE, "preset": "sandmle-paper", "steps": 7})
    assert user_steps.steps == 7 and user_steps.epochs is None
    with pytest.raises(ConfigError, match="^steps: 7 disagrees with epochs 2"):
        load_train_config({**BASE, "epochs": 2, "steps": 7})
    assert load_train_config(BASE).preset is None and load_train_config(BASE).steps == 100  # no preset: as before


@pytest.mark.parametrize("bad, message", [
    ({"preset": "sandmle"}, "preset: 'sandmle' is not one of sandmle-paper, cpu-smoke"),
    ({"scaffold_options": {"dialekt": "sandmle"}}, "scaffold_options: unknown scaffold option 'dialekt' for react"),
    ({"scaffold_options": {"dialect": "verl"}}, "scaffold_options: scaffold option 'dialect' of react: 'verl' is not"),
    ({"scaffold": "aide", "scaffold_options": {"dialect": "sandmle"}},
     "scaffold_options: unknown scaffold option 'dialect' for aide"),
    ({"scaffold_options": {"max_tokens": 64}}, "scaffold_options: max_tokens: a training run sets episode budgets"),
    ({"scaffold_options": {"preset": "upstream"}}, "scaffold_options: context_tokens, max_tokens, max_turns"),
    ({"scaffold_options": "dialect=sandmle"}, "scaffold_options: expected a mapping"),
])
def test_bad_presets_and_options_are_refused_with_the_key_named(bad, message):
    with pytest.raises(ConfigError) as caught:
        load_train_config({**BASE, **bad})
    assert str(caught.value).startswith(message), str(caught.value)
    assert caught.value.key == message.split(":")[0]


def test_the_cli_takes_a_preset_and_scaffold_options_and_refuses_bad_ones_before_any_model_loads(tmp_path, capsys):
    assert main(["grpo", "--preset", "sandmle-pape", "--set", "model=m", "--set", "tasks=[t]",
                 "--set", "output_dir=o"]) == 2
    assert capsys.readouterr().err.startswith("sandmle grpo: preset: 'sandmle-pape' is not one of")
    assert main(["grpo", "--preset", "cpu-smoke", "--set", "model=m", "--set", "tasks=[t]", "--set", "output_dir=o",
                 "--set", "scaffold=aira", "--scaffold-option", "dialect=sandmle"]) == 2
    assert "scaffold_options: unknown scaffold option 'dialect' for aira" in capsys.readouterr().err
    # Valid settings reach the path check (no checkpoint "m"): the options were accepted.
    assert main(["grpo", "--preset", "cpu-smoke", "--set", "model=m", "--set", "tasks=[t]", "--set", "output_dir=o",
                 "--scaffold-option", "dialect=sandmle"]) == 2
    assert "model: checkpoint directory not found" in capsys.readouterr().err
    assert main(["grpo", "--keys"]) == 0
    table = capsys.readouterr().out
    assert "preset sandmle-paper: 1e-06 (SandMLE's rLLM/verl recipe: actor lr 1e-6)" in table
    assert "scaffold_options  (options, default {})" in table


@pytest.mark.torch
def test_cpu_smoke_visibly_learns_with_the_reply_menu_model(tmp_path):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from tests.engine.rollout_bundles import make_bundle

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint", reply_menu=TABULAR_REPLY_MENU)
    task = make_bundle(tmp_path / "tasks", kind="regression")
    config = load_train_config({"preset": "cpu-smoke", "model": str(checkpoint), "tasks": [str(task)],
                                "output_dir": str(tmp_path / "run")})
    lines = []
    result = train_grpo(config, on_step=lines.append)
    assert result["steps_done"] == 6 and len(result["checkpoints"]) == 1
    rewards = [line["reward_mean"] for line in lines]
    for line in lines:  # the dense reward's parts, per step, sum to its mean
        assert set(line["reward_components"]) == {"valid", "milestone", "format"}
        assert sum(line["reward_components"].values()) == pytest.approx(line["reward_mean"])
    # Measured on 2 cores: 0.15, 0.6, 0.7, 0.9, 0.9, 0.9 (the fitted model's reply wins every episode by step 4).
    assert sum(rewards[-2:]) / 2 >= sum(rewards[:2]) / 2 + 0.3, rewards


def test_the_paper_preset_sets_the_memory_an_8b_policy_needs_with_its_source():
    config = load_train_config({**BASE, "preset": "sandmle-paper"})
    assert (config.micro_batch_size, config.gradient_checkpointing, config.bf16) == (2, True, True)
    sources = {key: source for key, (_, source) in RUN_PRESETS["sandmle-paper"].items()}
    assert "ppo_micro_batch_size_per_gpu 2" in sources["micro_batch_size"]
    assert "enable_gradient_checkpointing" in sources["gradient_checkpointing"]
    assert "bf16 parameters" in sources["bf16"]
    assert all(source.startswith("SandMLE's rLLM/verl recipe") for key, source in sources.items()
               if key in ("micro_batch_size", "gradient_checkpointing", "bf16"))
    # 64 episodes in micro-batches of 2 still split over the README's 8 training processes (4 micro-batches each).
    from sandmle.rl.process_split import splits

    assert splits(tasks_per_step=16, group_size=4, micro_batch=2, processes=8)
    assert not splits(tasks_per_step=16, group_size=4, micro_batch=2, processes=7)
