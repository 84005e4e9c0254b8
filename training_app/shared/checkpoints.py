"""Checkpoint paths a form or the API accepts: checked when the form is sent, not seconds later in the worker."""

from __future__ import annotations

from pathlib import Path


def checkpoint_problem(spec: str) -> str | None:
    """Why `spec` ("PATH" or "hf:PATH") is no loadable checkpoint, or None when it is one.

    A checkpoint is a save_pretrained directory: a folder holding config.json. The path is read as the web process
    sees it, which is the workers' view too (they share the data directory).
    """
    text = (spec or "").strip()
    path = Path(text.removeprefix("hf:"))
    if not str(path) or str(path) == ".":
        return "give a checkpoint directory"
    if not path.is_absolute():
        return f"{text}: give an absolute path to a checkpoint directory"
    if not path.is_dir():
        return f"{text}: no such directory"
    if not (path / "config.json").is_file():
        return f"{text}: not a checkpoint (no config.json; save it with save_pretrained)"
    return None


def checkpoint_choices(limit: int = 50) -> list[str]:
    """The checkpoints a user may pick: those the studio's training runs wrote that are still on disk, newest first."""
    from training_app.models import TrainingCheckpoint

    paths = TrainingCheckpoint.objects.order_by("-id").values_list("path", flat=True)[:limit * 4]
    return [path for path in dict.fromkeys(paths) if checkpoint_problem(path) is None][:limit]
