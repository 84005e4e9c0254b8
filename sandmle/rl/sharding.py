"""Whether this training process runs under a launch that shards the policy's parameters, read from the environment
`accelerate launch` gives the processes it starts, so a GRPO run can refuse hf generation on such a model before any
model loads.

Without `use_vllm` the hf backend generates on the unwrapped model. Under DeepSpeed ZeRO-3 or FSDP its parameters are
shards: every forward all-gathers them, a collective every process must join. Processes whose episodes decode
different numbers of tokens run different numbers of forwards, and the one that finishes first waits for ever.

The variables, as accelerate 1.x sets and reads them (accelerate/utils/launch.py, state.py, utils/dataclasses.py):
- `ACCELERATE_USE_DEEPSPEED=true`, with `ACCELERATE_DEEPSPEED_ZERO_STAGE` (the plugin's stage; 2 when unset) or
  `ACCELERATE_DEEPSPEED_CONFIG_FILE`, a JSON file whose `zero_optimization.stage` wins over the variable unless it is
  "auto";
- `ACCELERATE_USE_FSDP=true`, with `FSDP_VERSION` (1 when unset) and, for FSDP1, `FSDP_SHARDING_STRATEGY`: NO_SHARD
  (or 3, its number) keeps whole parameters on every process; any other strategy, and FSDP2, shards them.

One process has no peer to wait on, so the refusal needs WORLD_SIZE > 1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from sandmle.settings import ConfigError

# accelerate.utils.environment.str_to_bool's truth values.
_TRUE = ("y", "yes", "t", "true", "on", "1")
# accelerate.utils.constants.FSDP_SHARDING_STRATEGY: NO_SHARD is the third (its enum value is 3).
_NO_SHARD = ("NO_SHARD", "3")


def _flag(environ: Mapping[str, str], key: str) -> bool:
    return environ.get(key, "false").strip().lower() in _TRUE


def _config_file_stage(path: str) -> int | None:
    """zero_optimization.stage of a DeepSpeed JSON config (a path or the JSON itself); None where unset, "auto" or
    unreadable (accelerate then takes the plugin's stage, or fails on the file itself)."""
    try:
        text = Path(path).read_text(encoding="utf-8") if Path(path).is_file() else path
        stage = json.loads(text).get("zero_optimization", {}).get("stage")
    except (OSError, ValueError, AttributeError):
        return None
    try:
        return int(stage)
    except (TypeError, ValueError):
        return None


def deepspeed_zero_stage(environ: Mapping[str, str] | None = None) -> int | None:
    """The ZeRO stage of an `accelerate launch` with DeepSpeed, or None when DeepSpeed is not in use."""
    environ = os.environ if environ is None else environ
    if not _flag(environ, "ACCELERATE_USE_DEEPSPEED"):
        return None
    config_file = environ.get("ACCELERATE_DEEPSPEED_CONFIG_FILE", "none")
    stage = _config_file_stage(config_file) if config_file != "none" else None
    if stage is not None:
        return stage
    try:
        return int(environ.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", "2"))
    except ValueError:
        return 2


def fsdp_shards(environ: Mapping[str, str] | None = None) -> bool:
    """Whether an `accelerate launch` with FSDP shards the parameters (all but FSDP1's NO_SHARD)."""
    environ = os.environ if environ is None else environ
    if not _flag(environ, "ACCELERATE_USE_FSDP"):
        return False
    if environ.get("FSDP_VERSION", "1").strip() != "1":
        return True
    return environ.get("FSDP_SHARDING_STRATEGY", "FULL_SHARD").strip().upper() not in _NO_SHARD


def sharded_launch(environ: Mapping[str, str] | None = None) -> str | None:
    """"DeepSpeed ZeRO-3" or "FSDP" where this launch shards the parameters over its processes, else None."""
    environ = os.environ if environ is None else environ
    if deepspeed_zero_stage(environ) == 3:
        return "DeepSpeed ZeRO-3"
    if fsdp_shards(environ):
        return "FSDP"
    return None


def check_generation_sharding(*, use_vllm: bool, environ: Mapping[str, str] | None = None) -> None:
    """Raises ConfigError(use_vllm) where the hf backend would generate on a model sharded over several processes."""
    environ = os.environ if environ is None else environ
    if use_vllm or int(environ.get("WORLD_SIZE", "1")) <= 1:
        return
    launch = sharded_launch(environ)
    if launch:
        raise ConfigError("use_vllm", f"generation on a model sharded by ZeRO-3/FSDP would deadlock (this launch "
                                      f"uses {launch}): set use_vllm: true with vllm_mode: server")
