"""Task bundle files: deterministic writing, hashing, and proof that a bundle is the one its spec makes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd

FLOAT_FORMAT = "%.6g"


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(frame.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n"), encoding="utf-8")


def write_json(data: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def file_hashes(task_dir: Path) -> dict[str, str]:
    """sha256 of every file under public/ and private/, keyed by relative path."""
    return {
        str(path.relative_to(task_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in ("public", "private")
        for path in sorted((task_dir / folder).rglob("*"))
        if path.is_file()
    }


def bundle_hash(hashes: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for relative in sorted(hashes):
        digest.update(f"{relative}\0{hashes[relative]}\n".encode())
    return digest.hexdigest()


def read_task(task_dir: Path) -> dict:
    return json.loads((Path(task_dir) / "task.json").read_text())
