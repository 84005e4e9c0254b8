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

A worker killed with SIGKILL never reaches its cleanup, so every staged entry has an owner record beside it
(`<name>.owner`: the pid and the kernel's start time of the process that made it). Making a new entry sweeps
the root: entries whose owner is gone are removed. The record sits in the root, which steps never see (they
see the entry's contents only, and the root is not listable).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from sandmle.sandbox.host_files import remove_tree

STAGING_DIR_NAME = ".sandmle-stage"
OWNER_SUFFIX = ".owner"


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


def _process_start(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot), which tells a live owner from a reused pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22; the command name before ")" may hold spaces


def _owner_line() -> str:
    return f"{os.getpid()} {_process_start(os.getpid())}\n"


def _owner_dead(record: Path) -> bool:
    """True only for a record this module wrote whose process is gone; a record it cannot read is kept."""
    try:
        pid_text, start = record.read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    if _process_start(os.getpid()) is None:
        return False  # no /proc here: nobody can be told dead
    return _process_start(pid) != start


def sweep_dead(root: Path) -> int:
    """Remove the entries under the staging root `root` whose owning process is gone; how many were removed."""
    if root.name != STAGING_DIR_NAME:
        return 0  # never sweep a directory we do not own (the temporary directory of a fallback)
    removed = 0
    try:
        records = [entry for entry in os.scandir(root) if entry.name.endswith(OWNER_SUFFIX)]
    except OSError:
        return 0
    for record in records:
        if not _owner_dead(Path(record.path)):
            continue
        entry = Path(record.path[: -len(OWNER_SUFFIX)])
        remove_tree(entry)  # an agent's scratch may hold unreadable directories and deep trees
        if not entry.exists():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(record.path)
            removed += 1
    return removed


def _claim(entry: Path) -> None:
    """Record this process as the owner of a staging entry (written before the entry is made or moved in)."""
    (entry.parent / (entry.name + OWNER_SUFFIX)).write_text(_owner_line())


def _release(entry: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(entry.parent / (entry.name + OWNER_SUFFIX))


def make_staged_dir(root: Path) -> Path:
    """A fresh random directory under `root`, owned by this process (swept once the process is gone)."""
    sweep_dead(root)
    target = Path(tempfile.mkdtemp(prefix="", suffix="", dir=root))
    _claim(target)
    return target


def owned_temp_dir(prefix: str) -> Path:
    """A private scratch directory (an episode's workdir, a zygote's state) swept if this process is killed: under
    the staging root with an owner record where there is one, else a plain temporary directory."""
    root = staging_root(Path(tempfile.gettempdir()))
    return make_staged_dir(root) if root is not None else Path(tempfile.mkdtemp(prefix=prefix))


def stage_public(public_dir: Path) -> Path:
    """A random directory holding public_dir's files (hard links, or copies); remove it with remove_staged."""
    root = staging_root(public_dir) or Path(tempfile.gettempdir())
    target = make_staged_dir(root)
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
        remove_tree(Path(path))
        _release(Path(path))


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
            _claim(staged)
            os.rename(workdir, staged)
    except OSError:
        if staged is not None:
            _release(staged)
        staged = None
    try:
        yield staged if staged is not None else workdir
    finally:
        if staged is not None:
            os.rename(staged, workdir)
            _release(staged)
