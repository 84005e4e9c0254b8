"""Neutral bind sources for a step: the public files and the scratch dir are mounted from random staging paths.

A bind mount shows its source's path within the source filesystem in the step's /proc/self/mountinfo (the
fourth field), and that path is read when the table is read. Binding a task's public/ directly would tell the
step where the task's private/ lives on the host, and binding the episode's directory where the episode (and
its neighbours) live. So:
- public files are hard-linked (copied where links cannot reach: another filesystem, no permission) into a
  fresh random directory under a staging root on the same filesystem, made once per episode, removed at close;
- the scratch dir is renamed into a random name under that staging root for the length of one step and renamed
  back before the host looks at it again. A rename is two system calls, and the host's path stays the truth.
The staging root sits in the temporary directory when that is on the same filesystem, else at the top of the
filesystem, so its path names no bundle, data directory, task or episode.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

STAGING_DIR_NAME = ".sandmle-stage"


def staging_root(near: Path) -> Path | None:
    """A staging directory on `near`'s filesystem whose path says nothing of `near`; None if none can be made."""
    device = os.stat(near).st_dev
    temp = Path(tempfile.gettempdir())
    if os.stat(temp).st_dev == device:
        candidate = temp / STAGING_DIR_NAME
    else:
        top = Path(near).resolve()
        while not os.path.ismount(top) and top != top.parent:
            top = top.parent
        candidate = top / STAGING_DIR_NAME
    try:
        candidate.mkdir(mode=0o711, exist_ok=True)
    except OSError:
        return None
    return candidate if os.stat(candidate).st_dev == device else None


def stage_public(public_dir: Path) -> Path:
    """A random directory holding public_dir's files (hard links, or copies); remove it with remove_staged."""
    root = staging_root(public_dir) or Path(tempfile.gettempdir())
    target = Path(tempfile.mkdtemp(prefix="", suffix="", dir=root))
    os.chmod(target, 0o755)
    pending = [(Path(public_dir), target)]
    while pending:  # iterative: a deep public tree cannot exhaust the stack
        source, destination = pending.pop()
        for entry in os.scandir(source):
            inner = destination / entry.name
            if entry.is_dir(follow_symlinks=False):
                inner.mkdir(mode=0o755)
                pending.append((Path(entry.path), inner))
            elif entry.is_file(follow_symlinks=False):
                try:
                    os.link(entry.path, inner, follow_symlinks=False)
                except OSError:
                    shutil.copyfile(entry.path, inner, follow_symlinks=False)
                    os.chmod(inner, 0o644)
            # Links and special files in a bundle's public/ are not part of a task; they are left out.
    return target


def remove_staged(path: Path | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def staged_workdir(workdir: Path) -> Iterator[Path]:
    """For one step, the scratch dir under a random name (the path to bind and to measure); restored after.

    Where no staging root exists on the workdir's filesystem, or the workdir cannot be moved (a mount point),
    the workdir itself is yielded.
    """
    root = staging_root(workdir.parent)
    staged = root / secrets.token_hex(8) if root is not None else None
    try:
        if staged is not None:
            os.rename(workdir, staged)
    except OSError:
        staged = None
    try:
        yield staged if staged is not None else workdir
    finally:
        if staged is not None:
            os.rename(staged, workdir)
