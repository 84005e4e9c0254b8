"""A task set as one .tar.gz in the layout a framework reads, with the id list that framework expects.

- mlebench: `competitions/<id>/` (registry entries) and `data/<id>/prepared/{public,private}`, plus
  `experiments/splits/<set>.txt` (one competition id a line, as MLE-bench's split files);
- sandmle: the SandMLE layout `sandmle.formats.sandmle_layout` writes, plus `ok_competitions_sanity.json` (the JSON
  list of task ids the released training code filters by) at the archive's root;
- bundle: our own bundles as they are (`<id>/public`, `<id>/private`, `task.json`), plus `task_set.json`.

Every layout carries the answers (the point of an export is grading elsewhere): only reviewers download one.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Callable

from sandmle.archives import ARCHIVE_FORMATS
from sandmle.errors import UsageError

SANDMLE_ID_LIST = "ok_competitions_sanity.json"
MANIFEST = "task_set.json"


def _task_id(task_dir: Path) -> str:
    from sandmle.evaluation.campaign import task_id_of

    return task_id_of(Path(task_dir))


def _copy_bundle(task_dir: Path, out_dir: Path) -> Path:
    """Our bundle's files (regular files only, no link followed) under out_dir/<id>/."""
    target = out_dir / _task_id(task_dir)
    for folder in ("public", "private"):
        for path in sorted((task_dir / folder).rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            destination = target / path.relative_to(task_dir)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
    shutil.copyfile(task_dir / "task.json", target / "task.json")
    return target


def write_layout(task_dirs: list[Path], out_dir: Path, *, fmt: str, set_name: str, description: str = "",
                 on_task: Callable[[int], None] | None = None) -> list[str]:
    """Write every bundle in `fmt` under out_dir with the format's id list; return the task ids in order."""
    from sandmle.formats import mlebench, sandmle_layout

    if fmt not in ARCHIVE_FORMATS:
        raise UsageError(f"format: expected one of {', '.join(ARCHIVE_FORMATS)}, not {fmt!r}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ids = []
    for index, task_dir in enumerate(task_dirs, start=1):
        task_dir = Path(task_dir)
        if fmt == "mlebench":
            mlebench.export_task(task_dir, out_dir)
        elif fmt == "sandmle":
            sandmle_layout.export_task(task_dir, out_dir)
        else:
            _copy_bundle(task_dir, out_dir)
        ids.append(_task_id(task_dir))
        if on_task is not None:
            on_task(index)
    if fmt == "mlebench":
        splits = out_dir / "experiments" / "splits"
        splits.mkdir(parents=True, exist_ok=True)
        (splits / f"{set_name}.txt").write_text("".join(f"{task_id}\n" for task_id in ids), encoding="utf-8")
    elif fmt == "sandmle":
        (out_dir / SANDMLE_ID_LIST).write_text(json.dumps(ids, indent=2) + "\n", encoding="utf-8")
    else:
        (out_dir / MANIFEST).write_text(json.dumps({"name": set_name, "description": description, "task_ids": ids},
                                                   indent=2) + "\n", encoding="utf-8")
    return ids


def build_archive(task_dirs: list[Path], archive: Path, *, fmt: str, set_name: str, description: str = "",
                  on_task: Callable[[int], None] | None = None) -> list[str]:
    """write_layout into a scratch folder, then one .tar.gz at `archive` (written aside and renamed into place)."""
    archive = Path(archive)
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sandmle-archive-", dir=archive.parent) as scratch:
        root = Path(scratch) / set_name
        ids = write_layout(task_dirs, root, fmt=fmt, set_name=set_name, description=description, on_task=on_task)
        partial = Path(scratch) / "archive.tar.gz"
        with tarfile.open(partial, "w:gz") as tar:
            tar.add(root, arcname=set_name, filter=_regular_only)
        os.replace(partial, archive)
    return ids


def _regular_only(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Folders and regular files, owned by nobody in particular: what our own reader accepts back."""
    if not (member.isdir() or member.isreg()):
        return None
    member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member
