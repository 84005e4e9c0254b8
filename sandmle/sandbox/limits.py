"""Resource limits, step results and the helpers (environment, rlimits, output, file snapshots) every sandbox path shares."""

from __future__ import annotations

import os
import resource
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

OUTPUT_LIMIT_BYTES = 64 * 1024
SANDBOX_UID = 65534
TERMINATIONS = ("ok", "error", "timeout", "memory", "killed")


class SandboxUnavailable(RuntimeError):
    """Bubblewrap (or the namespaces it needs) cannot run here, so untrusted code is refused."""


@dataclass(frozen=True)
class Limits:
    """Per-step resource limits; cpu_s defaults to the wall timeout.

    file_size_mb bounds each file and the step's private /tmp; workdir_mb bounds the whole scratch dir, which
    persists across the episode's steps (a step that takes it over the quota is killed and its writes removed).
    """

    timeout_s: float = 60.0
    cpu_s: float | None = None
    memory_mb: int = 2048
    file_size_mb: int = 256
    workdir_mb: int = 1024
    open_files: int = 256
    processes: int = 64


@dataclass
class StepResult:
    """What one step of agent code did: how it ended, what it printed, which workdir files it touched."""

    exit_code: int | None
    termination: str
    wall_s: float
    cpu_s: float
    stdout: str
    stderr: str
    files_changed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def python_paths() -> dict[str, str]:
    """The interpreter and package directories a step needs, bound read-only inside the sandbox."""
    site_packages = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return {
        "base_prefix": os.path.realpath(sys.base_prefix),
        "python": os.path.join(os.path.realpath(sys.base_prefix), "bin", version),
        "site_packages": os.pathsep.join(os.path.realpath(p) for p in site_packages),
    }


def scrubbed_env(*, home: str, site_packages: str) -> dict[str, str]:
    """A fresh environment: nothing of the worker's variables (secrets, database URLs) reaches a step."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": site_packages,
        "TMPDIR": "/tmp",
    }


def apply_rlimits(limits: Limits, *, include_nproc: bool = True) -> None:
    """Set the step's rlimits in the current (about to run agent code) process."""
    cpu = int(limits.cpu_s if limits.cpu_s is not None else max(1.0, limits.timeout_s)) + 1
    memory = limits.memory_mb * 1024 * 1024
    file_size = limits.file_size_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if include_nproc:
        # Counts per real uid: effective because steps run as uid 65534, never as root.
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))


def truncate_output(data: bytes, *, limit: int = OUTPUT_LIMIT_BYTES) -> str:
    """Keep the head and the tail of long output, with a marker saying how much was cut."""
    if len(data) <= limit:
        return data.decode("utf-8", errors="replace")
    half = limit // 2
    cut = len(data) - 2 * half
    return (data[:half].decode("utf-8", errors="replace") + f"\n... [truncated {cut} bytes] ...\n"
            + data[-half:].decode("utf-8", errors="replace"))


def read_capped(path: Path, *, limit: int = OUTPUT_LIMIT_BYTES) -> str:
    """Read a captured output file without loading more than its head and tail."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return ""
    with path.open("rb") as handle:
        if size <= limit:
            return truncate_output(handle.read(), limit=limit)
        half = limit // 2
        head = handle.read(half)
        handle.seek(size - half)
        tail = handle.read(half)
    return (head.decode("utf-8", errors="replace") + f"\n... [truncated {size - 2 * half} bytes] ...\n"
            + tail.decode("utf-8", errors="replace"))


@dataclass
class WorkdirState:
    """One walk of a scratch dir: (mtime_ns, size) of every regular file and the directories, by relative path."""

    files: dict[str, tuple[int, int]]
    directories: set[str]


def snapshot(workdir: Path) -> WorkdirState:
    state = WorkdirState(files={}, directories=set())
    for root, dirs, files in os.walk(workdir):
        state.directories.update(os.path.relpath(os.path.join(root, name), workdir) for name in dirs)
        for name in files:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            state.files[os.path.relpath(path, workdir)] = (info.st_mtime_ns, info.st_size)
    return state


def changed_files(before: WorkdirState, after: WorkdirState) -> list[str]:
    return sorted(path for path, stamp in after.files.items() if before.files.get(path) != stamp)


def classify(*, returncode: int | None, timed_out: bool, stderr: str) -> tuple[int | None, str]:
    """Map a finished process to (exit_code, termination reason)."""
    if timed_out:
        return None, "timeout"
    if returncode is None:
        return None, "killed"
    if "MemoryError" in stderr[-4000:] or "Cannot allocate memory" in stderr[-4000:]:
        return returncode, "memory"
    if returncode < 0 or returncode > 128:
        return returncode, "killed"
    return returncode, "ok" if returncode == 0 else "error"


def prepare_workdir(workdir: Path) -> None:
    """Give the unprivileged step uid ownership of the episode's scratch dir."""
    workdir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return
    for root, dirs, files in os.walk(workdir):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.lstat(path).st_uid != SANDBOX_UID:
                os.lchown(path, SANDBOX_UID, SANDBOX_UID)
    os.chown(workdir, SANDBOX_UID, SANDBOX_UID)
