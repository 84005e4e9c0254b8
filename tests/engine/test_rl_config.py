"""Training settings: unknown keys, wrong types and out-of-range values are refused with the key named (CLI exit 2)."""

from __future__ import annotations

import pytest

from sandmle.cli import main
from sandmle.rl.config import config_fields, load_train_config
from sandmle.settings import ConfigError

BASE = {"model": "ckpt", "tasks": ["t1"], "output_dir": "out"}


def test_defaults_are_sandmle_s_recipe():
    config = load_train_config(BASE)
    assert (config.group_size, config.tasks_per_step, config.learning_rate, config.clip_low, config.clip_high,
            config.kl_coef, config.temperature, config.max_turns, config.feedback) == (4, 16, 1e-6, 0.2, 0.28, 0.0,
                                                                                         1.0, 15, "score")
    assert config.lora is None and config.task_sampling == "uniform" and str(config.output_dir) == "out"
    # The reference trainer's loss, baseline and timeout rule; token-level importance weights for vLLM samples.
    assert (config.loss_type, config.masked_in_baseline, config.mask_step_timeout_share, config.weight_decay,
            config.importance_sampling, config.importance_sampling_cap) == ("grpo", "reference", 0.2, 0.01,
                                                                           "token_truncate", 2.0)
    assert load_train_config(config.to_dict()).to_dict() == config.to_dict()  # a resolved config.yaml loads back


@pytest.mark.parametrize("bad, key", [
    ({"group_sise": 4}, "group_sise"),
    ({"group_size": "four"}, "group_size"),
    ({"group_size": 1}, "group_size"),
    ({"learning_rate": -1.0}, "learning_rate"),
    ({"dynamic_sampling": "yes"}, "dynamic_sampling"),
    ({"reward": "dense+sparse"}, "reward"),
    ({"reward": "rubric"}, "reward"),
    ({"lora": {"r": 0}}, "lora.r"),
    ({"lora": {"rank": 8}}, "lora.rank"),
    ({"clip_high": 0.1}, "clip_high"),
    ({"model": None}, "model"),
    ({"loss_type": "ppo"}, "loss_type"),
    ({"importance_sampling": "sequence"}, "importance_sampling"),
    ({"importance_sampling_cap": 1.0}, "importance_sampling_cap"),
    ({"importance_sampling_cap": 0.5}, "importance_sampling_cap"),
    ({"masked_in_baseline": "include"}, "masked_in_baseline"),
    ({"mask_step_timeout_share": 1.01}, "mask_step_timeout_share"),
    ({"mask_step_timeout_share": -0.1}, "mask_step_timeout_share"),
    ({"weight_decay": -0.01}, "weight_decay"),
    ({"loss_normalizer": 0}, "loss_normalizer"),
    ({"loss_normalizer": -256}, "loss_normalizer"),
    ({"loss_normalizer": "episodes"}, "loss_normalizer"),
    ({"loss_normalizer": True}, "loss_normalizer"),
    ({"loss_normalizer": float("nan")}, "loss_normalizer"),
    ({"loss_normalizer": 256, "loss_type": "dapo"}, "loss_normalizer"),
])
def test_bad_settings_name_their_key(bad, key):
    with pytest.raises(ConfigError) as caught:
        load_train_config({**BASE, **bad})
    assert caught.value.key == key and str(caught.value).startswith(f"{key}: ")


def test_overrides_and_the_sft_kind():
    config = load_train_config(BASE, ["group_size=8", "lora.r=4", "task_sampling=learnability"])
    assert config.group_size == 8 and config.lora["r"] == 4 and config.task_sampling == "learnability"
    with pytest.raises(ConfigError, match="^steps: "):
        load_train_config(BASE, ["steps=0"])
    sft = load_train_config({"model": "m", "dataset": ["d.jsonl"], "output_dir": "o"}, kind="sft")
    assert sft.kind == "sft" and sft.learning_rate == 1e-5
    with pytest.raises(ConfigError, match="^group_size: unknown"):
        load_train_config({"model": "m", "dataset": ["d.jsonl"], "output_dir": "o", "group_size": 4}, kind="sft")


def test_fields_describe_a_form():
    fields = {f["key"]: f for f in config_fields("grpo")}
    assert fields["group_size"]["min"] == 2 and fields["group_size"]["default"] == 4
    assert fields["reward"]["choices"] == ["dense", "sparse", "rubric", "dense+rubric"]
    assert fields["model"]["required"] and not fields["steps"]["required"]
    assert all(f["help"] for f in fields.values())


def test_cli_refuses_a_bad_config_with_one_line(tmp_path, capsys):
    path = tmp_path / "run.yaml"
    path.write_text("model: ckpt\ntasks: [t1]\noutput_dir: out\ntasks_per_step: -3\n")
    assert main(["grpo", "--config", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "tasks_per_step: -3 is below the minimum 1" in error
    path.write_text("model: ckpt\ntasks: [t1]\noutput_dir: out\n")
    assert main(["grpo", "--config", str(path), "--set", "temperature=hot"]) == 2
    assert "temperature: expected a number" in capsys.readouterr().err
    assert main(["grpo", "--config", str(path)]) == 2  # valid settings, but no checkpoint there
    assert "model: checkpoint directory not found" in capsys.readouterr().err


def test_the_key_table_cites_the_reference_and_the_cli_prints_it(capsys):
    fields = {f["key"]: f for f in config_fields("grpo")}
    for key, value in (("loss_type", "grpo"), ("importance_sampling", "off"), ("masked_in_baseline", "reference"),
                       ("mask_step_timeout_share", "0.2"), ("weight_decay", "0.01"), ("step_timeout_s", "300"),
                       ("time_budget_s", "1200"), ("max_tokens", "longer")):
        assert fields[key]["reference"].startswith(value) and "SandMLE's rLLM/verl recipe" in fields[key]["reference"]
    assert fields["importance_sampling_cap"]["min_exclusive"] and fields["importance_sampling_cap"]["min"] == 1.0
    assert fields["loss_type"]["choices"] == ["grpo", "dapo", "dr_grpo", "bnpo"]
    assert main(["grpo", "--keys"]) == 0
    table = capsys.readouterr().out
    assert "loss_type  (choice, default grpo)" in table and "range: above 1.0 .. 1000.0" in table
    assert "reference: 300 (SandMLE's rLLM/verl recipe)" in table
    assert main(["grpo"]) == 2
    assert capsys.readouterr().err.strip() == ("sandmle grpo: --config FILE.yaml is required (or --preset NAME with --set, or --keys for the key "
                                                  "table)")


def test_loss_normalizer_is_the_trained_count_or_a_positive_number():
    assert load_train_config(BASE).loss_normalizer == "trained"
    assert load_train_config(BASE, ["loss_normalizer=256"]).loss_normalizer == 256.0
    assert load_train_config({**BASE, "loss_normalizer": "12.5"}).loss_normalizer == 12.5  # the form sends text
    with pytest.raises(ConfigError, match=r"^loss_normalizer: expected trained or a positive number \(the release's "
                                          r"256\), not 0$"):
        load_train_config(BASE, ["loss_normalizer=0"])
    field = {f["key"]: f for f in config_fields("grpo")}["loss_normalizer"]
    assert field["default"] == "trained" and "256" in field["help"]
    assert field["reference"].startswith("256") and "SandMLE's rLLM/verl recipe" in field["reference"]
