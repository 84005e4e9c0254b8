"""A sandbox step's mount table as (mount point, source) pairs: a host path for a bind, the filesystem type for a new
filesystem (a fresh tmpfs, the step's proc, devpts). Read from the step's /proc/self/mountinfo and matched against
the host's own, by device and root, so a host directory bound in place of a private tmpfs shows as what it is."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path


def parse_mountinfo(text: str) -> list[dict]:
    """One dict a line: device (major:minor), root (path inside that filesystem), point, fstype (see proc(5))."""
    rows = []
    for line in text.splitlines():
        before, after = line.split(" - ", 1)
        fields = before.split()
        rows.append({"device": fields[2], "root": _unescape(fields[3]), "point": _unescape(fields[4]),
                     "fstype": after.split()[0]})
    return rows


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash in octal.
    return field.encode().decode("unicode_escape") if "\\" in field else field


def host_paths(device: str, root: str, host: list[dict]) -> set[str]:
    """Every host path at which `root` of filesystem `device` is visible; empty for a filesystem the host lacks."""
    found = set()
    for mount in host:
        if mount["device"] != device:
            continue
        base = mount["root"].rstrip("/")
        if root == mount["root"] or root.startswith(base + "/"):
            found.add(os.path.normpath(mount["point"] + "/" + root[len(base):]))
    return found


def step_sources(step_mountinfo: str) -> list[tuple[str, str | frozenset]]:
    """(point, source) for every mount of the step: the host paths it binds, or the new filesystem's type."""
    host = parse_mountinfo(Path("/proc/self/mountinfo").read_text())
    table = []
    for mount in parse_mountinfo(step_mountinfo):
        paths = host_paths(mount["device"], mount["root"], host)
        table.append((mount["point"], frozenset(paths) if paths else mount["fstype"]))
    return table


def mismatches(table: list[tuple[str, str | frozenset]], expected: dict[str, str | tuple], *,
               optional: dict[str, str] | None = None, twice: frozenset = frozenset()) -> list[str]:
    """What differs between the step's table and the expected one: `expected` maps each point to a filesystem type,
    to ("host", path) for a bind of exactly that host path, or to ("host-in", directory) for a bind of a path
    directly inside that directory (a random staging name). `optional` points may be absent; `twice` points are
    bound twice (the interpreter's prefix when it is /usr itself)."""
    optional = optional or {}
    problems = []
    counts = Counter(point for point, _ in table)
    problems += [f"{point} mounted {count} times" for point, count in counts.items()
                 if count != (2 if point in twice else 1)]
    for point, source in table:
        want = expected.get(point, optional.get(point))
        if want is None:
            problems.append(f"unexpected mount {point} ({_shown(source)})")
        elif isinstance(want, str):
            if source != want:
                problems.append(f"{point}: {_shown(source)}, expected a new {want}")
        elif not isinstance(source, frozenset):
            problems.append(f"{point}: a new {source}, expected a bind of the host's {want[1]}")
        elif want[0] == "host" and want[1] not in source:
            problems.append(f"{point}: binds {_shown(source)}, expected the host's {want[1]}")
        elif want[0] == "host-in" and not any(os.path.dirname(path) == want[1] for path in source):
            problems.append(f"{point}: binds {_shown(source)}, expected a path inside {want[1]}")
    problems += [f"{point} is not mounted" for point in expected if point not in counts]
    return problems


def _shown(source) -> str:
    return "host " + ", ".join(sorted(source)) if isinstance(source, frozenset) else f"new {source}"
