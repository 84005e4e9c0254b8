"""hf generation on a model sharded by DeepSpeed ZeRO-3 or FSDP is refused before any model loads, read from the
environment `accelerate launch` gives its processes, and the refusal names the way out (use_vllm with vllm_mode
server); ZeRO-2, FSDP1's NO_SHARD, one process, and use_vllm runs go on to the model load."""

from __future__ import annotations

import json

import pytest

from sandmle.cli import main
from sandmle.rl.sharding import check_generation_sharding, deepspeed_zero_stage, sharded_launch
from sandmle.settings import ConfigError

REFUSAL = ("sandmle grpo: use_vllm: generation on a model sharded by ZeRO-3/FSDP would deadlock (this launch uses "
           "{launch}): set use_vllm: true with vllm_mode: server")
ZERO3 = {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "3"}
ZERO2 = {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "2"}
# What accelerate/utils/launch.py sets for configs/accelerate/fsdp2.yaml.
FSDP2 = {"ACCELERATE_USE_FSDP": "true", "FSDP_VERSION": "2", "FSDP_SHARDING_STRATEGY": "FULL_SHARD",
         "FSDP_RESHARD_AFTER_FORWARD": "true"}
LAUNCH_KEYS = ("ACCELERATE_USE_DEEPSPEED", "ACCELERATE_DEEPSPEED_ZERO_STAGE", "ACCELERATE_DEEPSPEED_CONFIG_FILE",
               "ACCELERATE_USE_FSDP", "FSDP_VERSION", "FSDP_SHARDING_STRATEGY", "FSDP_RESHARD_AFTER_FORWARD")


class ModelLoaded(Exception):
    pass


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """`sandmle grpo` on 2 processes of a launch whose environment a test sets; load_model raises ModelLoaded."""
    for key in LAUNCH_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("WORLD_SIZE", "2")
    loads = []

    def load_model(config):
        loads.append(config.model)
        raise ModelLoaded

    monkeypatch.setattr("sandmle.rl.grpo.load_model", load_model)
    (tmp_path / "checkpoint").mkdir()  # empty: nothing here could load
    (tmp_path / "task" / "public").mkdir(parents=True)

    def run(environ: dict[str, str], *sets: str) -> int:
        for key, value in environ.items():
            monkeypatch.setenv(key, value)
        return main(["grpo", "--set", f"model={tmp_path / 'checkpoint'}", "--set", f"tasks=[{tmp_path / 'task'}]",
                     "--set", f"output_dir={tmp_path / 'run'}", "--set", "tasks_per_step=2", "--set", "group_size=2",
                     *[arg for pair in sets for arg in ("--set", pair)]])

    run.loads = loads
    run.output_dir = tmp_path / "run"
    return run


@pytest.mark.parametrize("environ, launch", [(ZERO3, "DeepSpeed ZeRO-3"), (FSDP2, "FSDP"),
                                             ({"ACCELERATE_USE_FSDP": "true"}, "FSDP")])
def test_a_sharded_launch_is_refused_before_the_model_loads(cli, capsys, environ, launch):
    assert cli(environ) == 2
    assert capsys.readouterr().err.strip() == REFUSAL.format(launch=launch)
    assert cli.loads == [] and not (cli.output_dir / "config.yaml").exists()


def test_a_deepspeed_config_file_at_stage_3_is_refused(cli, capsys, tmp_path):
    ds_config = tmp_path / "ds.json"
    ds_config.write_text(json.dumps({"zero_optimization": {"stage": 3}, "train_batch_size": "auto"}))
    # The file's stage wins over the variable, as in accelerate's DeepSpeedPlugin.
    assert cli({**ZERO2, "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(ds_config)}) == 2
    assert capsys.readouterr().err.strip() == REFUSAL.format(launch="DeepSpeed ZeRO-3")
    assert cli.loads == []


@pytest.mark.parametrize("environ, sets", [
    (ZERO2, ()),  # gradients and optimizer states sharded, whole parameters on every process
    ({"ACCELERATE_USE_FSDP": "true", "FSDP_VERSION": "1", "FSDP_SHARDING_STRATEGY": "NO_SHARD"}, ()),
    ({}, ()),  # DDP
    (ZERO3, ("use_vllm=true", "vllm_mode=server", "vllm_server_url=http://localhost:8000")),
    (FSDP2, ("use_vllm=true", "vllm_mode=server", "vllm_server_url=http://localhost:8000")),
])
def test_unsharded_generation_goes_on_to_the_model_load(cli, environ, sets):
    with pytest.raises(ModelLoaded):
        cli(environ, *sets)
    assert len(cli.loads) == 1


def test_the_detection_reads_accelerates_variables(tmp_path):
    assert sharded_launch({}) is None and deepspeed_zero_stage({}) is None
    assert deepspeed_zero_stage({"ACCELERATE_USE_DEEPSPEED": "true"}) == 2  # the plugin's default stage
    assert deepspeed_zero_stage({"ACCELERATE_USE_DEEPSPEED": "false", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "3"}) is None
    auto = tmp_path / "auto.json"
    auto.write_text(json.dumps({"zero_optimization": {"stage": "auto"}}))
    assert deepspeed_zero_stage({**ZERO3, "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(auto)}) == 3  # "auto": the plugin's
    assert deepspeed_zero_stage({"ACCELERATE_USE_DEEPSPEED": "1",
                                 "ACCELERATE_DEEPSPEED_CONFIG_FILE": '{"zero_optimization": {"stage": 3}}'}) == 3
    assert sharded_launch({"ACCELERATE_USE_FSDP": "true", "FSDP_SHARDING_STRATEGY": "SHARD_GRAD_OP"}) == "FSDP"
    assert sharded_launch({"ACCELERATE_USE_FSDP": "true", "FSDP_SHARDING_STRATEGY": "3"}) is None  # NO_SHARD's number
    # One process has no peer to wait on; several are refused unless vLLM generates.
    check_generation_sharding(use_vllm=False, environ={**ZERO3, "WORLD_SIZE": "1"})
    check_generation_sharding(use_vllm=True, environ={**ZERO3, "WORLD_SIZE": "7"})
    with pytest.raises(ConfigError) as caught:
        check_generation_sharding(use_vllm=False, environ={**FSDP2, "WORLD_SIZE": "7"})
    assert caught.value.key == "use_vllm" and "set use_vllm: true with vllm_mode: server" in str(caught.value)
