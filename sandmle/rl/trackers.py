"""Where a run's trainer logs go besides metrics.jsonl: TensorBoard, Trackio or W&B, each in a folder of output_dir.

TensorBoard gets its own writer on the run's folder (transformers' callback otherwise picks runs/<date>_<host>/ or
a process-wide TENSORBOARD_LOGGING_DIR); Trackio gets our own offline callback (trackio_log.py); W&B is TRL's own integration with WANDB_DIR set to the run's folder.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from sandmle.settings import ConfigError

LOG_DIRS = {"tensorboard": "tensorboard", "trackio": "trackio", "wandb": "wandb"}
# The module each tracker needs on the training worker (torch's SummaryWriter writes through tensorboard's).
NEEDS = {"tensorboard": "tensorboard", "trackio": "trackio", "wandb": "wandb"}


def trackers(config: Any) -> list[str]:
    return [name for name in config.report_to if name != "none"]


def log_dirs(config: Any) -> dict[str, Path]:
    """Each tracker's folder under output_dir (the run page links them)."""
    return {name: Path(config.output_dir) / LOG_DIRS[name] for name in trackers(config)}


def run_name(config: Any) -> str:
    return config.run_name or Path(config.output_dir).name


def check_trackers(config: Any) -> None:
    """A tracker whose package is missing is named before the model loads (the CLI's exit 2, the row's error)."""
    for name in trackers(config):
        if importlib.util.find_spec(NEEDS[name]) is None:
            raise ConfigError("report_to", f"{name} is not installed on this machine (pip install {NEEDS[name]})")


def tracker_setup(config: Any) -> tuple[list[str] | str, list[Any]]:
    """TRL's report_to and the callbacks added to the trainer for the run's trackers."""
    report_to: list[str] = []
    callbacks: list[Any] = []
    for name, folder in log_dirs(config).items():
        folder.mkdir(parents=True, exist_ok=True)
        if name == "tensorboard":
            from torch.utils.tensorboard import SummaryWriter
            from transformers.integrations import TensorBoardCallback

            callbacks.append(TensorBoardCallback(tb_writer=SummaryWriter(log_dir=str(folder))))
        elif name == "trackio":
            from sandmle.rl.trackio_log import TrackioCallback

            callbacks.append(TrackioCallback(folder, run_name(config)))
        else:
            # Read by wandb.init; a GPU worker trains one run at a time, so the process-wide variable is this run's.
            os.environ["WANDB_DIR"] = str(folder)
            report_to.append(name)
    return report_to or "none", callbacks
