"""Per-step cgroup v1 memory, pids and CPU-accounting groups, used only where those controllers are writable."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def own_cgroup_dir(controller: str, *, proc_cgroup: str = "/proc/self/cgroup") -> Path:
    """The directory of this process's own group in a v1 controller's hierarchy (from /proc/self/cgroup).

    Step groups are made below it, so the worker's own limits and accounting (a container's, a service's) bind
    its steps as well, and the worker never writes at the root of a hierarchy it was not given.
    """
    try:
        lines = Path(proc_cgroup).read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        _hierarchy, _, rest = line.partition(":")
        controllers, _, group = rest.partition(":")
        if controller in controllers.split(","):
            return CGROUP_ROOT / controller / group.lstrip("/")
    return CGROUP_ROOT / controller


class StepCgroup:
    """Memory + pids limits and CPU accounting for one step's process tree; remove() after the step.

    join() runs in the step's first process before it starts anything else, so every descendant is counted,
    including processes killed before anyone could wait for them (which os.times() never sees).
    """

    def __init__(self, *, memory_mb: int, processes: int) -> None:
        name = f"sandmle-{uuid.uuid4().hex[:12]}"
        self.dirs: dict[str, Path] = {}
        for controller, settings in (("memory", {"memory.limit_in_bytes": str(memory_mb << 20)}),
                                     ("pids", {"pids.max": str(processes)}),
                                     ("cpuacct", {})):
            base = own_cgroup_dir(controller)
            if not os.access(base, os.W_OK):
                continue
            path = base / name
            try:
                path.mkdir()
                for key, value in settings.items():
                    (path / key).write_text(value)
            except OSError:
                _remove_dir(path)
                continue
            self.dirs[controller] = path

    def join(self, pid: int | None = None) -> None:
        for path in self.dirs.values():
            with open(path / "cgroup.procs", "w") as handle:
                handle.write(str(pid or os.getpid()))

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this group for memory (not merely reclaimed its page cache)."""
        path = self.dirs.get("memory")
        if path is None:
            return False
        oom_control = path / "memory.oom_control"
        if oom_control.exists():
            for line in oom_control.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value or 0) > 0
        failcnt = path / "memory.failcnt"  # kernels before 4.13 have no oom_kill counter
        return failcnt.exists() and int(failcnt.read_text().strip() or 0) > 0

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process that ran in the group, or None without the cpuacct controller."""
        path = self.dirs.get("cpuacct")
        if path is None:
            return None
        try:
            return int((path / "cpuacct.usage").read_text().strip()) / 1e9
        except (OSError, ValueError):
            return None

    @property
    def limits_processes(self) -> bool:
        """Whether a pids group bounds this step; then RLIMIT_NPROC, which counts every process of the shared
        sandbox uid on the machine (so one episode's fork bomb would starve the others), can stay unset."""
        return "pids" in self.dirs

    @property
    def paths(self) -> list[str]:
        return [str(path) for path in self.dirs.values()]

    def remove(self) -> None:
        for path in self.dirs.values():
            _remove_dir(path)


def _remove_dir(path: Path) -> None:
    # A group can be removed only once its last process has been reaped, which may lag the kill by a moment.
    for _attempt in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)
