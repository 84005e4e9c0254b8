"""Reads of training runs shaped for their readers: the resolved config as the studio shows it."""

from __future__ import annotations

from pathlib import Path

from training_app.models import TrainingRun


def training_run_shown_config(run: TrainingRun) -> dict:
    """The trainer's resolved config with its task bundles named by task id, not by their server folders.

    A bundle's folder holds private/ (answers, hidden rule); viewers read this config, so it lists ids only. The stored
    config keeps the paths: the worker trains from them.
    """
    config = dict(run.config or {})
    if isinstance(config.get("tasks"), list):
        ids = {str(Path(task.bundle_dir)): task.task_id for task in run.task_set.tasks.all()} if run.task_set_id else {}
        config["tasks"] = [ids.get(str(path), Path(str(path)).name) for path in config["tasks"]]
    return config
