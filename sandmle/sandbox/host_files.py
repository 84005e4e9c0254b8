"""Host-side access to an episode's working directory: regular files only, never through a link, with size caps.

The worker runs as root and the directory is written by untrusted agent code, so every read, copy, walk and removal
the host does there goes through this module. Paths are walked one component at a time from the directory's own file
descriptor with O_NOFOLLOW, so no symbolic link, at any depth, is ever followed; walks and removal keep one directory
open at a time and climb back through "..", so they survive any depth a step can build. Refusals are plain sentences
that name the agent's own file and nothing about where a link points.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it right after.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


class RefusedFile(Exception):
    """An episode file the host will not read or write; the message is safe to show to the agent."""


@dataclass(frozen=True)
class Entry:
    """One directory entry found by a walk, described by lstat (links are never followed)."""

    relative: str
    mode: int
    size: int
    mtime_ns: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self.mode)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _components(relative: str | os.PathLike) -> list[str]:
    parts = [part for part in Path(relative).parts if part not in ("", ".")]
    if not parts or Path(relative).is_absolute() or ".." in parts:
        raise RefusedFile(f"{relative} is not a path inside the working directory")
    return parts


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB"


class EpisodeDir:
    """One episode's working directory as the host sees it; `root` itself is trusted (the host created it)."""

    def __init__(self, root: Path, *, hard_links_ok: bool = False) -> None:
        # An agent's directory refuses files with other hard links (one made to a file it should not see). A task
        # bundle's reader passes hard_links_ok: while an episode runs, the sandbox stages the bundle's public files
        # as hard links (sandbox/staging.py), and the studio must still serve them.
        self.root = Path(root)
        self.hard_links_ok = hard_links_ok

    def _open_parent(self, parts: list[str], *, create: bool = False) -> int:
        """An fd of the directory holding parts[-1], reached without following any link."""
        fd = os.open(self.root, _DIRECTORY_FLAGS)
        try:
            for index, name in enumerate(parts[:-1]):
                if create:
                    try:
                        os.mkdir(name, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    child = os.open(name, _DIRECTORY_FLAGS, dir_fd=fd)
                except OSError:
                    shown = "/".join(parts[: index + 1])
                    raise RefusedFile(f"{shown} is not a plain directory inside the working directory") from None
                os.close(fd)
                fd = child
            return fd
        except BaseException:
            os.close(fd)
            raise

    def lstat(self, relative: str | os.PathLike) -> os.stat_result | None:
        """The entry's own status (a link's, not its target's), or None when there is none."""
        try:
            parts = _components(relative)
            fd = self._open_parent(parts)
        except (RefusedFile, OSError):
            return None
        try:
            return os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None
        finally:
            os.close(fd)

    def exists(self, relative: str | os.PathLike) -> bool:
        return self.lstat(relative) is not None

    def open_regular(self, relative: str | os.PathLike, *, max_bytes: int) -> int:
        """A read-only fd of a regular, singly linked file inside the directory of at most max_bytes (caller closes)."""
        parts = _components(relative)
        name = "/".join(parts)
        parent = self._open_parent(parts)
        try:
            try:
                info = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                raise RefusedFile(f"{name} does not exist") from None
            self._check_regular(name, info, max_bytes)
            try:
                fd = os.open(parts[-1], _READ_FLAGS, dir_fd=parent)
            except OSError:
                raise RefusedFile(f"{name} could not be opened as a regular file") from None
        finally:
            os.close(parent)
        try:
            opened = os.fstat(fd)
            if _identity(opened) != _identity(info):
                raise RefusedFile(f"{name} changed while it was being opened")
            self._check_regular(name, opened, max_bytes)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read_bytes(self, relative: str | os.PathLike, *, max_bytes: int) -> bytes:
        """The file's bytes if it is a regular, singly linked file inside the directory of at most max_bytes."""
        fd = self.open_regular(relative, max_bytes=max_bytes)
        try:
            chunks, remaining = [], max_bytes + 1
            while remaining > 0:
                chunk = os.read(fd, min(remaining, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
        finally:
            os.close(fd)
        if len(data) > max_bytes:
            name = "/".join(_components(relative))
            raise RefusedFile(f"{name} is larger than {_megabytes(max_bytes)}; it was not read")
        return data

    def _check_regular(self, name: str, info: os.stat_result, max_bytes: int) -> None:
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(f"{name} is {_kind(info.st_mode)}; only regular files are graded or copied")
        if info.st_nlink > 1 and not self.hard_links_ok:
            raise RefusedFile(f"{name} has other hard links; only files with a single link are graded or copied")
        if info.st_size > max_bytes:
            raise RefusedFile(f"{name} is {_megabytes(info.st_size)}, more than the {_megabytes(max_bytes)} allowed; "
                              "it was not read")

    def read_text(self, relative: str | os.PathLike, *, max_bytes: int) -> str:
        return self.read_bytes(relative, max_bytes=max_bytes).decode("utf-8", errors="replace")

    def write_bytes(self, relative: str | os.PathLike, data: bytes) -> None:
        """Writes a fresh file under a temporary name (O_EXCL, no link followed) and renames it over the target.

        rename() replaces whatever entry holds the name, a planted link included, and never writes through it.
        """
        parts = _components(relative)
        parent = self._open_parent(parts, create=True)
        try:
            owner = os.fstat(parent)
            while True:
                temporary = f".sandmle-{secrets.token_hex(8)}"
                try:
                    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o644, dir_fd=parent)
                    break
                except FileExistsError:
                    continue
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if os.geteuid() == 0:
                    os.fchown(fd, owner.st_uid, owner.st_gid)  # the next step (the directory's owner) may rewrite it
            finally:
                os.close(fd)
            try:
                target = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
                if stat.S_ISDIR(target.st_mode):
                    self.remove(relative)
            except FileNotFoundError:
                pass
            os.rename(temporary, parts[-1], src_dir_fd=parent, dst_dir_fd=parent)
        finally:
            os.close(parent)

    def copy(self, source: str | os.PathLike, target: str | os.PathLike, *, max_bytes: int) -> None:
        self.write_bytes(target, self.read_bytes(source, max_bytes=max_bytes))

    def remove(self, relative: str | os.PathLike) -> None:
        """Removes the entry (a file, a link itself, or a whole directory tree); never raises."""
        try:
            parts = _components(relative)
            parent = self._open_parent(parts)
        except (RefusedFile, OSError):
            return
        try:
            info = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                _remove_children(parent, parts[-1])
                os.rmdir(parts[-1], dir_fd=parent)
            else:
                os.unlink(parts[-1], dir_fd=parent)
        except OSError:
            pass
        finally:
            os.close(parent)

    def walk(self) -> Iterator[Entry]:
        """Every entry under the directory, depth first, without following links and without recursion."""
        try:
            fd = os.open(self.root, _DIRECTORY_FLAGS)
        except OSError:
            return
        root_device = os.fstat(fd).st_dev
        # Each frame: the directory's relative path, its identity, and the subdirectories still to visit.
        frames: list[tuple[str, tuple[int, int], list[tuple[str, tuple[int, int]]]]] = []
        try:
            relative = ""
            identity = _identity(os.fstat(fd))
            while True:
                subdirs = []
                for name, info in _list(fd):
                    path = f"{relative}/{name}" if relative else name
                    yield Entry(path, info.st_mode, info.st_size, info.st_mtime_ns)
                    if stat.S_ISDIR(info.st_mode) and info.st_dev == root_device:
                        subdirs.append((name, _identity(info)))
                frames.append((relative, identity, subdirs))
                fd, relative, identity = _next_directory(fd, frames)
                if fd < 0:
                    return
        finally:
            if fd >= 0:
                os.close(fd)

    def snapshot(self) -> dict[str, tuple[int, int]]:
        """(mtime_ns, size) of every regular file, by relative path."""
        return {e.relative: (e.mtime_ns, e.size) for e in self.walk() if stat.S_ISREG(e.mode)}

    def sweep_links(self) -> list[str]:
        """Removes every link that could lead outside the directory (absolute, or with a ".." step); returns them.

        A relative link without ".." only ever descends, so it resolves inside even through other such links.
        """
        removed = []
        for entry in list(self.walk()):
            if not entry.is_symlink:
                continue
            parts = entry.relative.split("/")
            try:
                parent = self._open_parent(parts)
            except (RefusedFile, OSError):
                continue
            try:
                target = os.readlink(parts[-1], dir_fd=parent)
                if target.startswith("/") or ".." in Path(target).parts:
                    os.unlink(parts[-1], dir_fd=parent)
                    removed.append(entry.relative)
            except OSError:
                pass
            finally:
                os.close(parent)
        return removed


def _list(fd: int) -> list[tuple[str, os.stat_result]]:
    entries = []
    try:
        with os.scandir(fd) as listing:
            for entry in listing:
                try:
                    entries.append((entry.name, entry.stat(follow_symlinks=False)))
                except OSError:
                    continue
    except OSError:
        pass
    return entries


def _next_directory(fd, frames):
    """Moves fd to the next directory to visit (down into a pending one, or back up); -1 when the walk is done."""
    while frames:
        relative, identity, subdirs = frames[-1]
        if subdirs:
            name, child_identity = subdirs.pop()
            try:
                child = os.open(name, _DIRECTORY_FLAGS, dir_fd=fd)
            except OSError:
                continue
            if _identity(os.fstat(child)) != child_identity:
                os.close(child)
                continue
            os.close(fd)
            return child, f"{relative}/{name}" if relative else name, child_identity
        frames.pop()
        if not frames:
            break
        try:
            up = os.open("..", _DIRECTORY_FLAGS, dir_fd=fd)
        except OSError:
            break
        os.close(fd)
        fd = up
        if _identity(os.fstat(fd)) != frames[-1][1]:
            break  # the tree moved under us: stop rather than walk somewhere else
    os.close(fd)
    return -1, "", (0, 0)


def _remove_children(parent: int, name: str) -> None:
    """Empties the directory `name` of `parent` depth first, one open directory at a time; errors are skipped."""
    try:
        fd = os.open(name, _DIRECTORY_FLAGS, dir_fd=parent)
    except OSError:
        return
    path: list[tuple[str, tuple[int, int]]] = []  # the names walked down from the top, with their parents' identity
    attempts = 0
    while attempts < 10_000_000:
        attempts += 1
        descended = False
        for child, info in _list(fd):
            if stat.S_ISDIR(info.st_mode):
                try:
                    os.rmdir(child, dir_fd=fd)
                    continue
                except OSError:
                    pass
                try:
                    down = os.open(child, _DIRECTORY_FLAGS, dir_fd=fd)
                except OSError:
                    continue
                path.append((child, _identity(os.fstat(fd))))
                os.close(fd)
                fd, descended = down, True
                break
            try:
                os.unlink(child, dir_fd=fd)
            except OSError:
                pass
        if descended:
            continue
        if not path:
            break
        child, parent_identity = path.pop()
        try:
            up = os.open("..", _DIRECTORY_FLAGS, dir_fd=fd)
        except OSError:
            break
        os.close(fd)
        fd = up
        if _identity(os.fstat(fd)) != parent_identity:
            break
        try:
            os.rmdir(child, dir_fd=fd)
        except OSError:
            # A directory that cannot be removed (it keeps an entry) must not loop forever: skip it next time.
            break
    os.close(fd)


def remove_tree(path: Path) -> None:
    """Removes a whole directory tree of any depth without following links; never raises."""
    try:
        path = Path(path)
        info = os.lstat(path)
        parent = os.open(path.parent, _DIRECTORY_FLAGS & ~os.O_NOFOLLOW)
    except (OSError, ValueError):
        return
    try:
        if stat.S_ISDIR(info.st_mode):
            _remove_children(parent, path.name)
            os.rmdir(path.name, dir_fd=parent)
        else:
            os.unlink(path.name, dir_fd=parent)
    except (OSError, ValueError):
        pass
    finally:
        os.close(parent)
