"""One episode's sandbox: runs a step of agent code under bubblewrap (cold) or through a warm SandboxPool."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from pathlib import Path

from sandmle.sandbox.cgroups import StepCgroup
from sandmle.sandbox.limits import (
    SANDBOX_UID, Limits, SandboxUnavailable, StepResult, apply_rlimits, changed_files, classify,
    prepare_workdir, python_paths, read_capped, scrubbed_env, snapshot,
)
from sandmle.sandbox.staging import remove_staged, stage_public, staged_workdir
from sandmle.sandbox.zygote import tree_usage_bytes, watch_step

UNSAFE_ENV_VAR = "SANDMLE_UNSAFE_PLAIN_SUBPROCESS"


def unsafe_mode() -> bool:
    return os.environ.get(UNSAFE_ENV_VAR) == "1"


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


class Sandbox:
    """One episode: public/ read-only at /public, a persistent scratch dir at /workdir, a fresh process per step.

    Without bubblewrap it refuses to run unless SANDMLE_UNSAFE_PLAIN_SUBPROCESS=1; then a step is a plain
    subprocess with cwd = the host workdir, and public_path/work_path are the host paths.
    """

    def __init__(self, *, public_dir: Path, workdir: Path, limits: Limits | None = None, pool=None) -> None:
        self.public_dir = Path(public_dir).resolve()
        if not self.public_dir.is_dir():
            raise FileNotFoundError(f"public dir not found: {self.public_dir}")
        self.workdir = Path(workdir).resolve()
        prepare_workdir(self.workdir)
        self.limits = limits or Limits()
        self.pool = pool
        self.bwrap = bwrap_path()
        self.unsafe = self.bwrap is None or not _bwrap_works(self.bwrap)
        if self.unsafe and not unsafe_mode():
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is missing or cannot create namespaces here; refusing to run untrusted code. "
                f"Set {UNSAFE_ENV_VAR}=1 to allow a plain subprocess (development only, NOT isolated).")
        self.public_path = str(self.public_dir) if self.unsafe else "/public"
        self.work_path = str(self.workdir) if self.unsafe else "/workdir"
        # Steps bind the public files from a random staging copy, so their mount table names no bundle.
        self._staged_public = None if self.unsafe else stage_public(self.public_dir)
        self._release_staging = weakref.finalize(self, remove_staged, self._staged_public)

    def close(self) -> None:
        """Remove the episode's staged public files (also done when the sandbox is garbage-collected)."""
        self._release_staging()

    def run_python(self, code: str) -> StepResult:
        return self._run(kind="python", payload=code)

    def run_shell(self, command: str) -> StepResult:
        return self._run(kind="shell", payload=command)

    def _run(self, *, kind: str, payload: str) -> StepResult:
        prepare_workdir(self.workdir)
        before = snapshot(self.workdir)
        if self.unsafe:
            result = self._run_cold(kind=kind, payload=payload, workdir=self.workdir)
        else:
            with staged_workdir(self.workdir) as bind_workdir:
                if self.pool is not None:
                    result = self.pool.run_step(public_dir=self._staged_public, workdir=bind_workdir, kind=kind,
                                                payload=payload, limits=self.limits)
                else:
                    result = self._run_cold(kind=kind, payload=payload, workdir=bind_workdir)
        after = snapshot(self.workdir)
        result.files_changed = changed_files(before, after)
        quota_bytes = self.limits.workdir_mb << 20
        if tree_usage_bytes(str(self.workdir), stop_above=quota_bytes) > quota_bytes:
            self._undo_writes(result, new_directories=after.directories - before.directories)
        return result

    def _undo_writes(self, result: StepResult, *, new_directories: set[str]) -> None:
        """A step that filled the scratch dir past its quota was stopped; its writes go so the episode can go on."""
        for name in result.files_changed:
            (self.workdir / name).unlink(missing_ok=True)
        for name in sorted(new_directories, key=len, reverse=True):
            shutil.rmtree(self.workdir / name, ignore_errors=True)
        result.termination = "killed"
        result.stderr += (f"\n[sandbox: the step took the scratch directory over its {self.limits.workdir_mb} MB "
                          f"quota; it was stopped and the {len(result.files_changed)} files it wrote were removed]")
        result.files_changed = []

    def _command(self, *, kind: str, step_dir: Path, workdir: Path) -> list[str]:
        paths = python_paths()
        inner_step = str(step_dir) if self.unsafe else "/.sandmle"
        inner = ([paths["python"], f"{inner_step}/step.py"] if kind == "python"
                 else ["/bin/sh", f"{inner_step}/step.sh"])
        if self.unsafe:
            return inner
        # As root, bwrap runs without a user namespace and setpriv drops the step to the real uid 65534, so
        # RLIMIT_NPROC counts and the 65534-owned workdir is writable; as non-root, bwrap maps the caller's uid.
        as_root = os.geteuid() == 0
        unshare = (["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
                   if as_root else ["--unshare-all"])
        args = [self.bwrap, *unshare, "--die-with-parent", "--new-session",
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
                # /tmp is the step's (TMPDIR points there): world-writable like a real /tmp, as small as one file may
                # be, and made before the binds so that a Python environment under the host's /tmp shows inside it.
                "--perms", "1777", "--size", str(self.limits.file_size_mb << 20), "--tmpfs", "/tmp"]
        # Parents that bwrap creates for a bind (say /root above a pyenv prefix) must be traversable by the step's uid.
        binds = [paths["base_prefix"]] + [site for site in filter(None, paths["site_packages"].split(os.pathsep))
                                          if not site.startswith(paths["base_prefix"] + os.sep)]
        for path in binds:
            for parent in reversed(Path(path).parents[:-1]):
                args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", path, path]
        # bwrap would create /etc as 0700 root, leaving the loader's cache unreadable to the step.
        args += ["--perms", "0755", "--dir", "/etc"]
        for etc_file in ("/etc/ld.so.cache", "/etc/localtime"):
            if os.path.exists(etc_file):
                args += ["--ro-bind", etc_file, etc_file]
        args += ["--ro-bind", str(self._staged_public), "/public", "--bind", str(workdir), "/workdir",
                 "--ro-bind", str(step_dir), "/.sandmle", "--proc", "/proc", "--dev", "/dev", "--chdir", "/workdir", "--"]
        if as_root:
            args += ["/usr/bin/setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
                     "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
        return args + inner

    def _run_cold(self, *, kind: str, payload: str, workdir: Path) -> StepResult:
        with tempfile.TemporaryDirectory(prefix="sandmle-step-") as tmp:
            step_dir = Path(tmp)
            (step_dir / ("step.py" if kind == "python" else "step.sh")).write_text(payload)
            os.chmod(step_dir, 0o755)
            stdout_path, stderr_path = step_dir / "stdout", step_dir / "stderr"
            env = scrubbed_env(home=self.work_path, site_packages=python_paths()["site_packages"])
            limits = self.limits
            cgroup = StepCgroup(memory_mb=limits.memory_mb, processes=limits.processes) if not self.unsafe else None
            # Without a pids group, RLIMIT_NPROC (which binds once setpriv drops to uid 65534) bounds the processes.
            nproc_rlimit = cgroup is None or not cgroup.limits_processes

            def before_exec() -> None:
                if cgroup is not None:
                    cgroup.join()
                apply_rlimits(limits, include_nproc=nproc_rlimit)

            start = time.monotonic()
            usage_before = os.times()
            with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
                command = self._command(kind=kind, step_dir=step_dir, workdir=workdir)
                pass_fds: tuple[int, ...] = ()
                if not self.unsafe:
                    # bwrap reads its arguments from a file: as the PID namespace's init its command line is
                    # readable by the step, and must not show the host paths it binds.
                    args_file = step_dir / "bwrap-args"
                    split = command.index("--")  # the options go in the file; the step's own command stays
                    args_file.write_bytes(b"".join(arg.encode() + b"\0" for arg in command[1:split]))
                    args_fd = os.open(args_file, os.O_RDONLY)
                    args_file.unlink()
                    command = [command[0], "--args", str(args_fd), *command[split:]]
                    pass_fds = (args_fd,)
                try:
                    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                               cwd=str(workdir), env=env, start_new_session=True,
                                               preexec_fn=before_exec, pass_fds=pass_fds)
                finally:
                    for fd in pass_fds:
                        os.close(fd)
                pidfd = os.pidfd_open(process.pid)
                try:
                    ended = watch_step(pidfd, deadline=start + limits.timeout_s, workdir=str(workdir),
                                       quota_bytes=limits.workdir_mb << 20)
                finally:
                    os.close(pidfd)
                timed_out = ended == "timeout"
                # bwrap's --die-with-parent then ends its PID namespace, whatever sessions the step made.
                _kill_group(process.pid)
                process.wait()
            wall = time.monotonic() - start
            usage_after = os.times()
            # bwrap's own init reaps the step, so os.times() sees little of it; the cgroup sees it all.
            cpu = (usage_after.children_user - usage_before.children_user
                   + usage_after.children_system - usage_before.children_system)
            oom = False
            if cgroup is not None:
                oom = cgroup.oom_killed()
                cgroup_cpu = cgroup.cpu_seconds()
                cpu = cgroup_cpu if cgroup_cpu is not None else cpu
                cgroup.remove()
            stdout, stderr = read_capped(stdout_path), read_capped(stderr_path)
        returncode = process.returncode
        if not self.unsafe and returncode is not None and returncode > 128:
            returncode = -(returncode - 128)  # bwrap reports a step killed by signal N as 128 + N; as the pool does
        exit_code, termination = classify(returncode=returncode, timed_out=timed_out, stderr=stderr)
        if oom and termination in ("killed", "error"):
            termination = "memory"
        return StepResult(exit_code=exit_code, termination=termination, wall_s=round(wall, 4), cpu_s=round(cpu, 4),
                          stdout=stdout, stderr=stderr)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_BWRAP_CHECKED: dict[str, bool] = {}


def _bwrap_works(bwrap: str) -> bool:
    """Whether bwrap can create its namespaces here (checked once per process)."""
    if bwrap not in _BWRAP_CHECKED:
        try:
            probe = subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin",
                                    "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                                    "--", "/usr/bin/true"], capture_output=True, timeout=10,
                                   env={"PATH": "/usr/bin"})
            _BWRAP_CHECKED[bwrap] = probe.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _BWRAP_CHECKED[bwrap] = False
    return _BWRAP_CHECKED[bwrap]
