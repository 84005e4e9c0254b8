"""Reading an imported competition's folder, which comes from others: regular files only, no link, bounded sizes.

MLE-bench data, MLE-Dojo preparations and SandMLE's published bundles are downloads (or uploaded archives), so an
import treats them like an agent's working directory: every path is walked one component at a time from the folder
the user named, without following any symbolic link (sandmle/sandbox/host_files.py), only regular files with a single
link are read, every path a source names stays inside its folder, and a cap bounds each file and the whole import.
The folder the user named is trusted (it may itself be reached through a link); everything below it is not.
"""

from __future__ import annotations

import io
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pandas as pd

from sandmle.errors import UsageError
from sandmle.sandbox.host_files import EpisodeDir, RefusedFile

# One plain name component: what a task id may be, so that OUT/<id> is always a folder directly inside OUT.
PLAIN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class SourceLimits:
    """Caps on what one import reads: any file, files read whole into memory, text files, and the import in all."""

    max_file_bytes: int = 4 << 30
    max_table_bytes: int = 512 << 20
    max_text_bytes: int = 8 << 20
    max_total_bytes: int = 16 << 30
    max_files: int = 200_000


@dataclass
class _Budget:
    limits: SourceLimits
    bytes_read: int = 0
    files_read: int = 0

    def take(self, size: int, label: str) -> None:
        self.bytes_read += size
        if self.bytes_read > self.limits.max_total_bytes:
            raise UsageError(f"{label}: the source is larger than the {self.limits.max_total_bytes >> 20} MB an "
                             "import may read")


def plain_id(value: object, *, field_name: str) -> str:
    """The id as one plain folder name (letters, digits, '.', '_', '-', not starting with a dot), else a UsageError."""
    text = str(value)
    if not PLAIN_ID.fullmatch(text):
        raise UsageError(f"{field_name}: {text[:80]!r} is not a plain name (letters, digits, '.', '_', '-', at most "
                         "128, not starting with a dot)")
    return text


def finite_number(value: object, *, field_name: str) -> float:
    """A finite float from a source's JSON, YAML or CSV, else a UsageError naming the field."""
    if isinstance(value, bool):
        raise UsageError(f"{field_name}: expected a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{field_name}: expected a number, got {str(value)[:40]!r}") from None
    if not math.isfinite(number):
        raise UsageError(f"{field_name}: expected a finite number, got {value!r}")
    return number


def flag(value: object, *, field_name: str) -> bool:
    """A yes/no from a source (true/false, 1/0, 'true'/'false' as SandMLE's SynScoreTool reads them)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in {"true", "1", "yes", "false", "0", "no"}:
        return value.strip().lower() in {"true", "1", "yes"}
    raise UsageError(f"{field_name}: expected true or false, got {str(value)[:40]!r}")


def inside_path(value: object, *, field_name: str) -> str:
    """A relative path from a source's own files (config.yaml's dataset paths) that cannot leave its folder."""
    parts = PurePosixPath(str(value)).parts
    if not parts or str(value).startswith(("/", "\\")) or any(part in ("..", "") for part in parts) \
            or ":" in parts[0]:
        raise UsageError(f"{field_name}: {str(value)[:80]!r} is not a relative path inside the source folder")
    return "/".join(part for part in parts if part != ".")


class SourceFolder:
    """One folder of an imported source; `label` names it in messages (SRC, --data). Folders share one budget."""

    def __init__(self, root: Path, *, label: str = "SRC", limits: SourceLimits | None = None,
                 share_with: SourceFolder | None = None) -> None:
        root = Path(root)
        if not root.is_dir():
            raise UsageError(f"{label}: {root} is not a folder")
        self.root = root.resolve()
        self.label = label
        self._budget = share_with._budget if share_with is not None else _Budget(limits or SourceLimits())
        self._dir = EpisodeDir(self.root)

    @property
    def limits(self) -> SourceLimits:
        return self._budget.limits

    def sub(self, relative: str, *, label: str | None = None) -> SourceFolder:
        """A folder inside this one (checked for links at every component), sharing the budget."""
        if self.kind(relative) != "dir":
            raise UsageError(f"{self.label}: {relative} is not a folder")
        return SourceFolder(self.root / relative, label=label or self.label, share_with=self)

    def kind(self, relative: str) -> str | None:
        """'file', 'dir', or None when missing; a link or a special file at any component is refused."""
        parts = [part for part in PurePosixPath(inside_path(relative, field_name=self.label)).parts]
        for index in range(len(parts)):
            shown = "/".join(parts[: index + 1])
            info = self._dir.lstat(shown)
            if info is None:
                return None
            if stat.S_ISLNK(info.st_mode):
                raise UsageError(f"{self.label}: {shown} is a symbolic link; an import follows no links")
            last = index == len(parts) - 1
            if stat.S_ISDIR(info.st_mode):
                if last:
                    return "dir"
                continue
            if not stat.S_ISREG(info.st_mode):
                raise UsageError(f"{self.label}: {shown} is not a regular file or folder")
            return "file" if last else None
        return None

    def is_file(self, relative: str) -> bool:
        return self.kind(relative) == "file"

    def is_dir(self, relative: str) -> bool:
        return self.kind(relative) == "dir"

    def _open(self, relative: str, max_bytes: int) -> int:
        self.kind(relative)  # names a link at any component in its message
        try:
            return self._dir.open_regular(relative, max_bytes=max_bytes)
        except RefusedFile as refused:
            raise UsageError(f"{self.label}: {refused}") from None

    def read_bytes(self, relative: str, *, max_bytes: int | None = None) -> bytes:
        cap = min(max_bytes or self.limits.max_table_bytes, self.limits.max_file_bytes)
        fd = self._open(relative, cap)
        try:
            chunks, size = [], 0
            while chunk := os.read(fd, min(_CHUNK, cap + 1 - size)):
                chunks.append(chunk)
                size += len(chunk)
                if size > cap:
                    raise UsageError(f"{self.label}: {relative} grew past {cap >> 20} MB while it was read")
        finally:
            os.close(fd)
        self._budget.take(size, self.label)
        return b"".join(chunks)

    def read_text(self, relative: str) -> str:
        return self.read_bytes(relative, max_bytes=self.limits.max_text_bytes).decode("utf-8", errors="replace")

    def read_csv(self, relative: str, **options) -> pd.DataFrame:
        data = self.read_bytes(relative)
        try:
            return pd.read_csv(io.BytesIO(data), **options)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as error:
            raise UsageError(f"{self.label}: {relative} could not be read as CSV: "
                             f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None

    def copy_file(self, relative: str, target: Path) -> None:
        """Streams one regular file to target (a fresh path of ours), counting it against the caps."""
        fd = self._open(relative, self.limits.max_file_bytes)
        target.parent.mkdir(parents=True, exist_ok=True)
        size = 0
        try:
            with open(target, "xb") as out:
                while chunk := os.read(fd, _CHUNK):
                    size += len(chunk)
                    if size > self.limits.max_file_bytes:
                        raise UsageError(f"{self.label}: {relative} grew past {self.limits.max_file_bytes >> 20} MB "
                                         "while it was copied")
                    self._budget.take(len(chunk), self.label)
                    out.write(chunk)
        finally:
            os.close(fd)
        self._budget.files_read += 1
        if self._budget.files_read > self.limits.max_files:
            raise UsageError(f"{self.label}: the source has more than {self.limits.max_files} files")

    def files(self) -> list[str]:
        """Every regular file under the folder (relative, sorted); a link or a special file anywhere is refused."""
        found = []
        for entry in self._dir.walk():
            if entry.is_symlink:
                raise UsageError(f"{self.label}: {entry.relative} is a symbolic link; an import follows no links")
            if entry.is_dir:
                continue
            if not stat.S_ISREG(entry.mode):
                raise UsageError(f"{self.label}: {entry.relative} is not a regular file")
            found.append(entry.relative)
            if len(found) > self.limits.max_files:
                raise UsageError(f"{self.label}: the source has more than {self.limits.max_files} files")
        return sorted(found)


@dataclass
class PublicFiles:
    """The agent-visible files an importer picked from a source: relative target path -> (folder, source path)."""

    files: dict[str, tuple[SourceFolder, str]] = field(default_factory=dict)

    def add(self, folder: SourceFolder, relative: str, target: str | None = None) -> None:
        self.files[target or relative] = (folder, relative)

    def names(self) -> set[str]:
        return set(self.files)

    def copy_into(self, public: Path) -> None:
        for target, (folder, relative) in sorted(self.files.items()):
            folder.copy_file(relative, public / target)
