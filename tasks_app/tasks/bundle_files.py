"""Reads a stored bundle's files for the studio, keeping private/ to those allowed to see it."""

from __future__ import annotations

import os
from pathlib import Path

from sandmle.untrusted import bounded_json
from sandmle.sandbox.host_files import EpisodeDir, RefusedFile

MAX_TEXT_BYTES = 64 * 1024 * 1024  # a bundle's text files (description, rule, CSVs of 50-200 rows) are far smaller


def read_text(bundle_dir: str, relative: str, *, limit: int | None = None) -> str:
    """The file's text ("" when it is missing or not a plain file), cut to `limit` characters with a marker."""
    if not bundle_dir:
        return ""
    try:  # through EpisodeDir like the downloads (tasks_app/tasks/files.py): no symbolic link is followed
        text = EpisodeDir(bundle_dir, hard_links_ok=True).read_text(relative, max_bytes=MAX_TEXT_BYTES)
    except (RefusedFile, OSError):
        return ""
    return text if limit is None or len(text) <= limit else text[:limit] + "\n…"


def read_head(bundle_dir: str, relative: str, *, max_bytes: int) -> bytes:
    """The file's first `max_bytes` bytes (b"" when it is missing, not a plain file or over MAX_TEXT_BYTES): a page
    that shows or charts the head of a file costs the same whatever the file's size."""
    if not bundle_dir:
        return b""
    try:
        fd = EpisodeDir(bundle_dir, hard_links_ok=True).open_regular(relative, max_bytes=MAX_TEXT_BYTES)
    except (RefusedFile, OSError):
        return b""
    with os.fdopen(fd, "rb") as handle:
        return handle.read(max_bytes)


def read_json(bundle_dir: str, relative: str) -> dict:
    """The file's JSON object ({} when it is missing or unreadable: an imported bundle's file may be anything, and a
    page that shows it must still open)."""
    text = read_text(bundle_dir, relative)
    try:
        value = bounded_json.loads(text, allow_nan=True) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def image_names(bundle_dir: str, *, limit: int = 12) -> list[str]:
    folder = Path(bundle_dir) / "public" / "images"
    return sorted(path.name for path in folder.glob("*.png"))[:limit] if folder.is_dir() else []
