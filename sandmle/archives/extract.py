"""Unpacking an uploaded archive without trusting it: regular files and folders only, relative names inside the
target, and caps on members and bytes counted as they are written (a header's size is not believed).

tarfile's own `filter="data"` and zipfile's name cleaning each close part of this; one reader for both formats keeps
one rule: a member that is a link, a device, absolute, climbs out with `..`, or would pass a cap refuses the whole
archive, and nothing of it is kept.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Iterator

from sandmle.errors import UsageError

CHUNK = 1 << 20


@dataclass(frozen=True)
class ExtractLimits:
    # A task's public files are tens of KB to a few MB (its CSVs are held to the seed limit, 20 MiB, on import): these
    # leave room for images and many tasks while a small compressed bomb keeps nothing large on disk.
    max_members: int = 20_000
    max_file_bytes: int = 64 << 20
    max_total_bytes: int = 512 << 20
    max_name_chars: int = 400
    max_depth: int = 32


class ArchiveRefused(UsageError):
    """The archive holds something we never unpack; the message names the member and why."""


def _member_path(name: str, limits: ExtractLimits) -> PurePosixPath:
    """The member's relative path, or ArchiveRefused for one that could land outside the target."""
    if not name or len(name) > limits.max_name_chars or "\x00" in name:
        raise ArchiveRefused(f"member {name[:80]!r}: an empty, overlong or NUL-holding name")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a tar name's undecodable bytes arrive as lone surrogates: no page or row holds them
        raise ArchiveRefused(f"member {name[:80]!r}: a name that is not UTF-8 text") from None
    if "\\" in name:
        raise ArchiveRefused(f"member {name[:80]!r}: a backslash in a name (a Windows path)")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/"):
        raise ArchiveRefused(f"member {name[:80]!r}: an absolute path")
    parts = [part for part in path.parts if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveRefused(f"member {name[:80]!r}: a '..' in its path")
    if not parts:
        raise ArchiveRefused(f"member {name[:80]!r}: names no file")
    if len(parts) > limits.max_depth:
        raise ArchiveRefused(f"member {name[:80]!r}: nested deeper than {limits.max_depth} folders")
    return PurePosixPath(*parts)


def _copy_capped(source: BinaryIO, target: Path, *, name: str, limits: ExtractLimits, written: list[int]) -> None:
    size = 0
    # O_EXCL and O_NOFOLLOW: a second member of the same name, or anything already there, is never written through.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(CHUNK):
            size += len(chunk)
            written[0] += len(chunk)
            if size > limits.max_file_bytes:
                raise ArchiveRefused(f"member {name[:80]!r}: larger than {limits.max_file_bytes} bytes")
            if written[0] > limits.max_total_bytes:
                raise ArchiveRefused(f"the archive unpacks to more than {limits.max_total_bytes} bytes")
            out.write(chunk)


def _tar_members(archive: Path) -> Iterator[tuple[str, str, BinaryIO | None]]:
    try:
        tar = tarfile.open(archive, mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ArchiveRefused(f"not a readable tar archive ({error})") from None
    with tar:
        try:
            for member in tar:
                if member.isdir():
                    yield member.name, "dir", None
                elif member.isreg():
                    yield member.name, "file", tar.extractfile(member)
                else:
                    kind = "link" if member.issym() or member.islnk() else "special file"
                    raise ArchiveRefused(f"member {member.name[:80]!r}: a {kind}")
        except (tarfile.TarError, EOFError, OSError) as error:
            raise ArchiveRefused(f"a damaged tar archive ({error})") from None


def _zip_members(archive: Path) -> Iterator[tuple[str, str, BinaryIO | None]]:
    try:
        bundle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as error:
        raise ArchiveRefused(f"not a readable zip archive ({error})") from None
    with bundle:
        for info in bundle.infolist():
            kind = stat.S_IFMT(info.external_attr >> 16)  # 0 where the writer recorded no Unix file type
            if kind == stat.S_IFLNK:
                raise ArchiveRefused(f"member {info.filename[:80]!r}: a link")
            if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveRefused(f"member {info.filename[:80]!r}: a special file")
            if info.is_dir():
                yield info.filename, "dir", None
            else:
                try:
                    with bundle.open(info) as handle:
                        yield info.filename, "file", handle
                except (zipfile.BadZipFile, RuntimeError, NotImplementedError) as error:
                    raise ArchiveRefused(f"member {info.filename[:80]!r}: cannot be read ({error})") from None


def archive_kind(archive: Path) -> str:
    if zipfile.is_zipfile(archive):
        return "zip"
    if tarfile.is_tarfile(archive):
        return "tar"
    raise ArchiveRefused("not a .tar, .tar.gz or .zip archive")


def extract_archive(archive: Path, target: Path, *, limits: ExtractLimits = ExtractLimits()) -> list[Path]:
    """Unpack into `target` (created, must not exist); return the files written. Refused: nothing is left behind."""
    archive, target = Path(archive), Path(target)
    members = _zip_members(archive) if archive_kind(archive) == "zip" else _tar_members(archive)
    target.mkdir(parents=True)
    written_files: list[Path] = []
    written = [0]
    count = 0
    try:
        for name, kind, handle in members:
            count += 1
            if count > limits.max_members:
                raise ArchiveRefused(f"more than {limits.max_members} members")
            relative = _member_path(name, limits)
            destination = target.joinpath(*relative.parts)
            # Folders are made here, never taken from the archive's modes; no existing path is followed.
            parent = target
            for part in relative.parts[:-1] if kind == "file" else relative.parts:
                parent = parent / part
                if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
                    raise ArchiveRefused(f"member {name[:80]!r}: a folder that is also a file")
                parent.mkdir(exist_ok=True)
            if kind == "file":
                if destination.exists() or destination.is_symlink():
                    raise ArchiveRefused(f"member {name[:80]!r}: appears twice")
                _copy_capped(handle, destination, name=name, limits=limits, written=written)
                written_files.append(destination)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return written_files
