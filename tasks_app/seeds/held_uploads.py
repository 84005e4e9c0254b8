"""A refused seed upload's file, held on the server until the form is sent again: browsers cannot refill a file input,
so without this a curator whose target was misspelt would have to find and choose the file once more.

Each held file lives under DATA_DIR/uploads/held/<user id>/ under a random token; only its owner can take it back,
a user holds at most HOLD_PER_USER files, and files older than HOLD_MAX_AGE_S are removed whenever one is held.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from pathlib import Path

from django.conf import settings
from django.utils.text import get_valid_filename

HOLD_PER_USER = 3
HOLD_MAX_AGE_S = 24 * 3600
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32}$")


def _user_dir(user) -> Path:
    return Path(settings.DATA_DIR) / "uploads" / "held" / str(int(user.pk))


def hold(*, user, name: str, content: bytes) -> str:
    """Keeps `content` for `user`; returns the token the form sends back."""
    folder = _user_dir(user)
    folder.mkdir(parents=True, exist_ok=True)
    _prune(folder, keep=HOLD_PER_USER - 1)
    token = secrets.token_urlsafe(24)  # 32 characters of [A-Za-z0-9_-]
    (folder / f"{token}.csv").write_bytes(content)
    (folder / f"{token}.json").write_text(json.dumps({"name": get_valid_filename(Path(name).name)[:120] or "upload.csv"}))
    return token


def take(*, user, token: str) -> tuple[str, bytes] | None:
    """The (file name, content) held under `token` for `user`, or None for any other token (never a path)."""
    if not user.is_authenticated or not TOKEN_PATTERN.match(token or ""):
        return None
    folder = _user_dir(user)
    try:
        name = json.loads((folder / f"{token}.json").read_text())["name"]
        return str(name), (folder / f"{token}.csv").read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        return None


def release(*, user, token: str) -> None:
    if TOKEN_PATTERN.match(token or ""):
        for suffix in (".csv", ".json"):
            (_user_dir(user) / f"{token}{suffix}").unlink(missing_ok=True)


def _prune(folder: Path, *, keep: int) -> None:
    """Removes held files past their age, then the oldest beyond `keep`."""
    held = sorted(folder.glob("*.csv"), key=lambda path: path.stat().st_mtime, reverse=True)
    now = time.time()
    for index, path in enumerate(held):
        if index >= keep or now - path.stat().st_mtime > HOLD_MAX_AGE_S:
            path.unlink(missing_ok=True)
            path.with_suffix(".json").unlink(missing_ok=True)
