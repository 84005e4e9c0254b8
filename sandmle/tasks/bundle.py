"""Task bundle files: deterministic writing, hashing, and proof that a bundle is the one its spec makes.

Files are written to a temporary name in their own directory and renamed over the target, and whole bundles are
built under a staging folder and renamed into place (publish_bundle): a reader never sees half a file or half a
bundle, whether the writer was killed or the disk filled.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

FLOAT_FORMAT = "%.6g"
STAGING_PREFIX = ".staging-"  # a bundle being built in out_dir; never a task's name (task ids start with a letter)


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk and rename it over `path`.

    On any error (ENOSPC, EFBIG, a kill) the temporary file is removed and `path` keeps its old content or stays
    absent; rename within one directory is atomic on POSIX filesystems.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        # mkstemp makes the file 0600; bundles are read by the sandbox's own uid-mapped steps, so give it the
        # ordinary 0644 a plain open() would have had.
        os.fchmod(handle, 0o644)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    text = frame.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    write_atomic(Path(path), text.encode("utf-8"))


def write_json(data: dict, path: Path) -> None:
    write_atomic(Path(path), (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def publish_bundle(built_dir: Path, task_dir: Path) -> Path:
    """Move a finished bundle from its staging folder to `task_dir` (same filesystem: a rename), replacing an older
    copy there (a rerun of the same spec); returns task_dir."""
    built_dir, task_dir = Path(built_dir), Path(task_dir)
    if built_dir == task_dir:
        return task_dir
    if task_dir.exists():
        # Aside first, then removed: the new bundle takes the name in one rename, never over a half-deleted one.
        retired = task_dir.with_name(f"{STAGING_PREFIX}{os.getpid()}-old-{task_dir.name}")
        os.replace(task_dir, retired)
        os.replace(built_dir, task_dir)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        os.replace(built_dir, task_dir)
    return task_dir


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
