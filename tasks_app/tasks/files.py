"""The files of a task's bundle that a user may list and download: public/ for everyone, private/ for reviewers.

Bundles are written by our own synthesis, yet they are read here through the engine's `EpisodeDir` all the same
(regular files only, no symbolic link followed at any depth): a bundle directory is a path in a database row, and a
file served from it must never be a link out to another task's answers or to the host. Hard links are accepted: a
running episode's sandbox stages the public files as hard links (sandbox/staging.py).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass

from sandmle.sandbox.host_files import EpisodeDir, RefusedFile

PUBLIC, PRIVATE = "public/", "private/"
# Synthesized bundles are small (the latency study keeps its full-size copies elsewhere); a download is read whole.
MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class BundleFile:
    path: str
    size: int

    @property
    def private(self) -> bool:
        return self.path.startswith(PRIVATE)


def bundle_file_list(*, bundle_dir: str, include_private: bool) -> list[BundleFile]:
    """Regular files under public/ (and private/ when allowed), sorted by path."""
    if not bundle_dir:
        return []
    try:
        entries = list(EpisodeDir(bundle_dir, hard_links_ok=True).walk())
    except (OSError, RefusedFile):
        return []
    files = []
    for entry in entries:
        if not stat.S_ISREG(entry.mode) or not entry.relative.startswith((PUBLIC, PRIVATE)):
            continue
        if entry.relative.startswith(PRIVATE) and not include_private:
            continue
        files.append(BundleFile(path=entry.relative, size=entry.size))
    return sorted(files, key=lambda file: file.path)


def bundle_file_read(*, bundle_dir: str, path: str, include_private: bool) -> bytes | None:
    """The file's bytes, or None when it is not one of the files `bundle_file_list` shows this user."""
    listed = {file.path for file in bundle_file_list(bundle_dir=bundle_dir, include_private=include_private)}
    if path not in listed:
        return None
    try:
        return EpisodeDir(bundle_dir, hard_links_ok=True).read_bytes(path, max_bytes=MAX_DOWNLOAD_BYTES)
    except RefusedFile:
        return None
