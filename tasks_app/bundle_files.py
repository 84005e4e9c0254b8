"""Reads a stored bundle's files for the studio, keeping private/ to those allowed to see it."""

from __future__ import annotations

import json
from pathlib import Path

PREVIEW_BYTES = 4000


def read_text(bundle_dir: str, relative: str, *, limit: int | None = None) -> str:
    path = Path(bundle_dir) / relative
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8", errors="replace")
    return text if limit is None or len(text) <= limit else text[:limit] + "\n…"


def read_json(bundle_dir: str, relative: str) -> dict:
    text = read_text(bundle_dir, relative)
    return json.loads(text) if text else {}


def public_previews(bundle_dir: str) -> dict[str, str]:
    return {name: read_text(bundle_dir, f"public/{name}", limit=PREVIEW_BYTES) for name in ("train.csv", "test.csv", "sample_submission.csv")}


def image_names(bundle_dir: str, *, limit: int = 12) -> list[str]:
    folder = Path(bundle_dir) / "public" / "images"
    return sorted(path.name for path in folder.glob("*.png"))[:limit] if folder.is_dir() else []
