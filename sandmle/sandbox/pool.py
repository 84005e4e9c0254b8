"""A bounded pool of warm zygotes that turn a step into a fork instead of a cold interpreter start."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

from sandmle.sandbox.cgroups import StepCgroup
from sandmle.sandbox.limits import (
    Limits, SandboxUnavailable, StepResult, classify, python_paths, read_capped, scrubbed_env,
)
from sandmle.sandbox.staging import make_staged_dir, owned_temp_dir, remove_staged, staging_root

ZYGOTE_SCRIPT = Path(__file__).with_name("zygote.py")
DEFAULT_PRELOAD = ("numpy", "pandas", "sklearn", "sklearn.linear_model", "sklearn.ensemble",
                   "sklearn.model_selection", "sklearn.metrics", "sklearn.preprocessing")


class _Zygote:
    """One long-lived pre-imported interpreter; it serves one step at a time."""

    def __init__(self, *, preload: tuple[str, ...], start_timeout_s: float) -> None:
        self.state_dir = owned_temp_dir("sandmle-zygote-")  # swept if the worker is killed
        (self.state_dir / "root").mkdir()
        paths = python_paths()
        self.python_dirs = [paths["base_prefix"]] + [
            p for p in paths["site_packages"].split(os.pathsep)
            if p and not p.startswith(paths["base_prefix"] + os.sep)]
        self.env = scrubbed_env(home="/workdir", site_packages=paths["site_packages"])
        self.process = subprocess.Popen(
            [paths["python"], str(ZYGOTE_SCRIPT), *preload],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env,
            cwd="/", start_new_session=True, text=True, bufsize=1)  # no host folder as its import-time directory
        self.steps = 0
        try:
            self.process.stdin.write(json.dumps({"root": str(self.state_dir / "root")}) + "\n")
            self.process.stdin.flush()
        except OSError:
            pass  # a zygote that died at once is reported by the wait for its ready line
        if self._read_line(timeout_s=start_timeout_s) is None:
            self.close()
            raise SandboxUnavailable("the warm zygote did not start (namespaces or mounts not permitted here)")

    def _read_line(self, *, timeout_s: float) -> dict | None:
        import select

        ready, _w, _x = select.select([self.process.stdout], [], [], timeout_s)
        if not ready:
            return None
        line = self.process.stdout.readline()
        return json.loads(line) if line else None

    def alive(self) -> bool:
        return self.process.poll() is None

    def run(self, *, request: dict, limits: Limits) -> dict | None:
        self.steps += 1
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        # The zygote enforces the timeout itself; the margin covers a zygote that has hung or died.
        return self._read_line(timeout_s=limits.timeout_s + 10.0)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        remove_staged(self.state_dir)


class SandboxPool:
    """At most max_zygotes warm interpreters; each is replaced after steps_per_zygote steps or when it dies."""

    def __init__(self, *, max_zygotes: int = 2, steps_per_zygote: int = 200,
                 preload: tuple[str, ...] = DEFAULT_PRELOAD, start_timeout_s: float = 60.0) -> None:
        if os.geteuid() != 0:
            raise SandboxUnavailable("the warm pool needs root to create per-step namespaces; use cold Sandbox steps")
        self.max_zygotes = max_zygotes
        self.steps_per_zygote = steps_per_zygote
        self.preload = tuple(preload)
        self.start_timeout_s = start_timeout_s
        self._idle: list[_Zygote] = []
        self._count = 0
        self._lock = threading.Condition()
        self._closed = False

    def _acquire(self) -> _Zygote:
        with self._lock:
            while True:
                if self._closed:
                    raise RuntimeError("the sandbox pool is closed")
                while self._idle:
                    zygote = self._idle.pop()
                    if zygote.alive():
                        return zygote
                    zygote.close()
                    self._count -= 1
                if self._count < self.max_zygotes:
                    self._count += 1
                    break
                self._lock.wait()
        try:
            return _Zygote(preload=self.preload, start_timeout_s=self.start_timeout_s)
        except BaseException:
            with self._lock:
                self._count -= 1
                self._lock.notify()
            raise

    def _release(self, zygote: _Zygote, *, healthy: bool) -> None:
        retire = not healthy or not zygote.alive() or zygote.steps >= self.steps_per_zygote or self._closed
        if retire:
            zygote.close()
        with self._lock:
            if retire:
                self._count -= 1
            else:
                self._idle.append(zygote)
            self._lock.notify()

    def warm_up(self) -> None:
        """Start the zygotes now so that the first steps do not pay for the imports."""
        zygotes = [self._acquire() for _ in range(self.max_zygotes)]
        for zygote in zygotes:
            self._release(zygote, healthy=True)

    def run_step(self, *, public_dir: Path, workdir: Path, kind: str, payload: str, limits: Limits) -> StepResult:
        zygote = self._acquire()
        # The step's stdout/stderr stay open in it, and /proc/self/fd shows their host path: a random staging name.
        step_dir = make_staged_dir(staging_root(Path(tempfile.gettempdir())) or zygote.state_dir)
        # Bounds the whole step tree (RLIMIT_AS is per process) and counts CPU of processes killed unwaited.
        cgroup = StepCgroup(memory_mb=limits.memory_mb, processes=limits.processes)
        request = {"kind": kind, "payload": payload, "public_dir": str(public_dir), "workdir": str(workdir),
                   "python_dirs": zygote.python_dirs, "env": zygote.env, "limits": asdict(limits),
                   "tmp_mb": limits.file_size_mb, "zygote_dir": str(ZYGOTE_SCRIPT.parent),
                   "cgroup_dirs": cgroup.paths, "nproc_rlimit": not cgroup.limits_processes,
                   "stdout": str(step_dir / "stdout"), "stderr": str(step_dir / "stderr")}
        start = time.monotonic()
        reply = None
        stdout = stderr = ""
        try:
            reply = zygote.run(request=request, limits=limits)
            stdout, stderr = read_capped(step_dir / "stdout"), read_capped(step_dir / "stderr")
        finally:
            self._release(zygote, healthy=reply is not None)
            remove_staged(step_dir)
            oom, cgroup_cpu_s = cgroup.oom_killed(), cgroup.cpu_seconds()
            cgroup.remove()
        if reply is None:
            return StepResult(exit_code=None, termination="killed", wall_s=round(time.monotonic() - start, 4),
                              cpu_s=round(cgroup_cpu_s or 0.0, 4), stdout=stdout,
                              stderr=stderr + "\n[sandbox: the warm interpreter died]")
        exit_code, termination = classify(returncode=reply["returncode"], timed_out=reply["timed_out"], stderr=stderr)
        if oom and termination in ("killed", "error"):
            termination = "memory"
        cpu_s = cgroup_cpu_s if cgroup_cpu_s is not None else reply["cpu_s"]
        return StepResult(exit_code=exit_code, termination=termination, wall_s=round(reply["wall_s"], 4),
                          cpu_s=round(cpu_s, 4), stdout=stdout, stderr=stderr)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for zygote in idle:
            zygote.close()

    def __enter__(self) -> "SandboxPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

