"""Trackio (TRL's local-first tracker) for one run, kept offline: its SQLite store lives in the run's trackio/ folder.

transformers' own TrackioCallback follows TRACKIO_SPACE_ID / TRACKIO_SERVER_URL to a Space or server and stores
under the TRACKIO_DIR read once at import; a worker trains many runs in one process, each in its own folder, and
a run's metrics stay on the machine that trained it. So this callback starts trackio itself, on the run's folder.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from transformers import TrainerCallback
from transformers.integrations.integration_utils import rewrite_logs

PROJECT = "sandmle"
# Environment variables that would send the run to a Space, a server or a Hub bucket instead of the local store.
REMOTE_VARIABLES = ("TRACKIO_SPACE_ID", "TRACKIO_SERVER_URL", "TRACKIO_BUCKET_ID", "TRACKIO_DATASET_ID")


def point_storage_at(folder: Path) -> None:
    """Every loaded trackio module's storage paths become the run's folder (trackio copies them at import)."""
    import trackio  # noqa: F401  (loads the modules whose copies are replaced below)

    paths = {"TRACKIO_DIR": folder, "MEDIA_DIR": folder / "media", "ARTIFACTS_DIR": folder / "artifacts"}
    for module_name, module in list(sys.modules.items()):
        if module is not None and (module_name == "trackio" or module_name.startswith("trackio.")):
            for name, path in paths.items():
                if hasattr(module, name):
                    setattr(module, name, path)


@contextmanager
def local_only() -> Iterator[None]:
    """Without the remote variables, and without the Hub user lookup (a network call) trackio makes for a run."""
    import trackio.run

    saved = {name: os.environ.pop(name) for name in REMOTE_VARIABLES if name in os.environ}
    lookup = trackio.run._get_default_namespace
    trackio.run._get_default_namespace = lambda: None
    try:
        yield
    finally:
        trackio.run._get_default_namespace = lookup
        os.environ.update(saved)


class TrackioCallback(TrainerCallback):
    """Logs each of the trainer's log lines at its global step, under train/ and eval/ as TensorBoard's callback does."""

    def __init__(self, folder: Path, run_name: str) -> None:
        self.folder, self.run_name, self.started = Path(folder), run_name, False

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not state.is_world_process_zero or self.started:
            return
        import trackio

        point_storage_at(self.folder)
        with local_only():
            trackio.init(project=PROJECT, name=self.run_name, config={"run_name": self.run_name}, resume="allow",
                         embed=False, auto_log_gpu=False, auto_log_cpu=False)
        self.started = True

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
        if not self.started or not logs:
            return
        import trackio

        scalars = {key: value for key, value in rewrite_logs(logs).items()
                   if isinstance(value, (int, float)) and not isinstance(value, bool)}
        if scalars:
            trackio.log(scalars, step=state.global_step)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.started:
            import trackio

            self.started = False
            trackio.finish()
