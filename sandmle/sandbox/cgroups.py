"""Per-step cgroup v1 memory and pids limits, used only where those controllers are writable."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


class StepCgroup:
    """A memory + pids cgroup for one step; join() runs in the child before exec, remove() after the step."""

    def __init__(self, *, memory_mb: int, processes: int) -> None:
        name = f"sandmle-{uuid.uuid4().hex[:12]}"
        self.dirs: list[Path] = []
        for controller, settings in (("memory", {"memory.limit_in_bytes": str(memory_mb << 20)}),
                                     ("pids", {"pids.max": str(processes)})):
            base = CGROUP_ROOT / controller
            if not os.access(base, os.W_OK):
                continue
            path = base / name
            try:
                path.mkdir()
                for key, value in settings.items():
                    (path / key).write_text(value)
            except OSError:
                continue
            self.dirs.append(path)

    def join(self) -> None:
        pid = str(os.getpid())
        for path in self.dirs:
            with open(path / "cgroup.procs", "w") as handle:
                handle.write(pid)

    def oom_killed(self) -> bool:
        for path in self.dirs:
            failcnt = path / "memory.failcnt"
            if failcnt.exists() and int(failcnt.read_text().strip() or 0) > 0:
                return True
        return False

    def remove(self) -> None:
        for path in self.dirs:
            for _attempt in range(50):
                try:
                    path.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)
