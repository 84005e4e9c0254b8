"""Checkpoint paths a form or the API accepts: checked when the form is sent, not seconds later in the worker."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from sandmle_web.errors import ServiceError
from training_app.shared.model_roots import allowed_model_path, ensure_tiny_model


def checkpoint_problem(spec: str) -> str | None:
    """Why `spec` ("PATH" or "hf:PATH", a relative path read inside the data directory) is no loadable checkpoint,
    or None when it is one. Call it on a path the model roots allow (checkpoint_refusal does both).

    A checkpoint is a save_pretrained directory: a folder holding config.json. The path is read as the web process
    sees it, which is the workers' view too (they share the data directory).
    """
    text = (spec or "").strip()
    raw = text.removeprefix("hf:")
    if not raw or raw == ".":
        return "give a checkpoint directory"
    path = Path(raw) if Path(raw).is_absolute() else Path(settings.DATA_DIR) / raw
    if not path.is_dir():
        return f"{text}: no such directory"
    if not (path / "config.json").is_file():
        return f"{text}: not a checkpoint (no config.json; save it with save_pretrained)"
    return None


def checkpoint_refusal(spec: str, *, user=None) -> str | None:
    """The form's and the API's check: inside the model roots (the same words whatever lies outside them), then a
    checkpoint on disk."""
    raw = (spec or "").strip().removeprefix("hf:")
    if not raw:
        return "give a checkpoint directory"
    try:
        allowed_model_path(raw, user=user)
    except ServiceError as error:
        return str(error)
    ensure_tiny_model(raw)
    return checkpoint_problem(spec)
