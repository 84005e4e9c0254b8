"""Escape attempts against the sandbox, through the warm pool and the cold bwrap path: each is contained, ends with
the right termination reason, and the same sandbox serves the next step."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from sandmle.sandbox import Limits, Sandbox, SandboxPool
from sandmle.sandbox.cgroups import StepCgroup
from sandmle.sandbox.limits import python_paths
from sandmle.sandbox.staging import staging_root
from sandmle.sandbox.zygote import tree_usage_bytes
from tests.engine.mount_table import mismatches, step_sources

SECRET_VAR, SECRET = "SANDMLE_TEST_SECRET", "sandmle-test-secret-value-4242"
# Generous wall limits: some steps do real work (a search of the whole tree, half a gigabyte of allocations) on a
# loaded 2-core machine with a cold page cache. A passing step never waits for its limit; only the infinite loop
# does, and it gets a short limit of its own.
LIMITS = Limits(timeout_s=60.0, memory_mb=512, file_size_mb=8, workdir_mb=32, processes=32)
LOOP_TIMEOUT_S = 1.5
# Pseudo-filesystems, and /usr (the host's, read-only; the mount check shows nothing else is mounted there).
PRUNED = ("/proc", "/sys", "/dev", "/usr")


@pytest.fixture(scope="module")
def pool():
    # The secret is in the worker's environment before the zygote starts, so a zygote that leaked it would show it.
    os.environ[SECRET_VAR] = SECRET
    try:
        with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=("numpy",)) as shared_pool:
            yield shared_pool
    finally:
        del os.environ[SECRET_VAR]


@dataclass
class Episode:
    task_dir: Path
    workdir: Path
    pool: SandboxPool | None

    def sandbox(self, **limit_changes) -> Sandbox:
        return Sandbox(public_dir=self.task_dir / "public", workdir=self.workdir,
                       limits=replace(LIMITS, **limit_changes), pool=self.pool)


@pytest.fixture(params=["warm", "cold"])
def episode(request, tmp_path, pool) -> Episode:
    task_dir = tmp_path / "task"
    (task_dir / "public").mkdir(parents=True)
    (task_dir / "private").mkdir()
    (task_dir / "public" / "train.csv").write_text("id,x,y\n1,0.5,1\n")
    (task_dir / "private" / "answers.csv").write_text("id,y,leaderboard\n1,TOPSECRETANSWER,public\n")
    other = tmp_path / "episodes" / "other"
    other.mkdir(parents=True)
    (other / "notes.txt").write_text("OTHER-EPISODE-STATE")
    return Episode(task_dir, tmp_path / "episodes" / "mine", pool if request.param == "warm" else None)


def assert_still_serves(sandbox: Sandbox) -> None:
    """The next step runs normally: it reads the public files and can start a process."""
    result = sandbox.run_python("import os\nprint(open('/public/train.csv').read().splitlines()[0])\n"
                                "pid = os.fork()\nif pid == 0:\n    os._exit(7)\nprint(os.waitpid(pid, 0)[1] >> 8)")
    assert result.termination == "ok", result
    assert result.stdout.split() == ["id,x,y", "7"]


def search_script(name: str) -> str:
    """A step that searches the whole tree but the pruned system dirs for files called `name`."""
    return f"""
import os
for root, dirs, files in os.walk("/"):
    if root in {PRUNED!r}:
        dirs[:] = []
        continue
    for found in files:
        if found == {name!r}:
            print("FOUND", os.path.join(root, found))
print("SEARCHED")
"""


def expected_mounts(episode: Episode, sandbox: Sandbox) -> tuple[dict, dict, frozenset]:
    """Every mount a step should have, by point: ("host", path) for a bind, a filesystem type for a new one."""
    paths = python_paths()
    python_dirs = [paths["base_prefix"]] + [p for p in paths["site_packages"].split(os.pathsep)
                                            if p and not p.startswith(paths["base_prefix"] + os.sep)]
    expected = {"/": "tmpfs", "/tmp": "tmpfs", "/proc": "proc", "/dev": "tmpfs", "/usr": ("host", "/usr"),
                **{path: ("host", path) for path in python_dirs},
                **{name: ("host", os.path.realpath(name)) for name in ("/etc/ld.so.cache", "/etc/localtime")
                   if os.path.exists(name)},
                **{f"/dev/{device}": ("host", f"/dev/{device}") for device in ("null", "zero", "full", "random",
                                                                               "urandom")},
                "/public": ("host", os.path.realpath(sandbox._staged_public)),
                "/workdir": ("host-in", os.path.realpath(staging_root(episode.workdir.parent)))}
    optional = {}
    if episode.pool is None:  # bubblewrap's own additions: the step's script, a tty, devpts, proc's covers
        expected.update({"/.sandmle": ("host-in", os.path.realpath(tempfile.gettempdir())),
                         "/dev/tty": ("host", "/dev/tty"), "/dev/pts": "devpts"})
        optional = {f"/proc/{name}": "proc" for name in ("sys", "sysrq-trigger", "irq", "bus")}
    return expected, optional, frozenset({"/usr"} if paths["base_prefix"] == "/usr" else ())


def test_the_step_mount_table_is_exactly_the_steps(episode):
    sandbox = episode.sandbox()
    result = sandbox.run_shell("cat /proc/self/mountinfo")
    assert result.termination == "ok", result
    expected, optional, twice = expected_mounts(episode, sandbox)
    problems = mismatches(step_sources(result.stdout), expected, optional=optional, twice=twice)
    assert not problems, "\n".join(problems)


def test_a_world_readable_file_outside_the_episode_stays_unreadable(episode):
    """Permissions hide nothing here: the decoy's folder and file are open to everyone, in the host's temp dir."""
    decoy_dir = Path(tempfile.mkdtemp(prefix="decoy-"))
    try:
        os.chmod(decoy_dir, 0o755)
        decoy = decoy_dir / "decoy-outside-episode.txt"
        decoy.write_text("DECOY-OUTSIDE-EPISODE")
        os.chmod(decoy, 0o644)
        sandbox = episode.sandbox()
        result = sandbox.run_python(f"""
import os
for path in [{str(decoy)!r}, {str(decoy.resolve())!r}, "/tmp/{decoy_dir.name}/{decoy.name}"]:
    try:
        print("READ", path, open(path).read())
    except OSError as error:
        print("REFUSED", type(error).__name__)
print("TMP", sorted(os.listdir("/tmp")))
""")
        assert result.termination == "ok", result
        assert "DECOY-OUTSIDE-EPISODE" not in result.stdout and result.stdout.count("REFUSED FileNotFoundError") == 3
        assert "TMP []" in result.stdout, result.stdout  # the step's own, empty /tmp
        search = sandbox.run_python(search_script(decoy.name))
        assert search.termination == "ok", search
        assert search.stdout.strip() == "SEARCHED", search.stdout
    finally:
        shutil.rmtree(decoy_dir)


def test_private_answers_unreachable(episode):
    sandbox = episode.sandbox()
    answers = episode.task_dir / "private" / "answers.csv"
    result = sandbox.run_python(f"""
import os
paths = ["../private/answers.csv", "/public/../private/answers.csv", "/workdir/../../task/private/answers.csv",
         {str(answers)!r}, "/proc/self/cwd/../private/answers.csv", "/proc/self/root{answers}"]
paths += [f"/proc/{{pid}}/{{link}}{answers}" for pid in os.listdir("/proc") if pid.isdigit() for link in ("root", "cwd")]
for path in paths:
    try:
        print("READ", path, open(path).read())
    except OSError:
        pass
print("TRIED", len(paths))
""")
    assert result.termination == "ok", result
    assert "READ" not in result.stdout and "TOPSECRETANSWER" not in result.stdout
    assert "TRIED" in result.stdout
    search = sandbox.run_python(search_script("answers.csv"))
    assert search.termination == "ok", search
    assert search.stdout.strip() == "SEARCHED", search.stdout
    assert_still_serves(sandbox)


def test_other_episodes_invisible(episode):
    sandbox = episode.sandbox()
    other = episode.workdir.parent / "other"
    result = sandbox.run_shell(f"ls -a /workdir/..; cat /workdir/../other/notes.txt ../other/notes.txt "
                               f"{other}/notes.txt; ls {episode.workdir.parent}; echo done")
    assert result.termination == "ok", result
    assert "OTHER-EPISODE-STATE" not in result.stdout
    assert "other" not in result.stdout.split()
    assert result.stdout.split()[-1] == "done"
    search = sandbox.run_python(search_script("notes.txt"))
    assert search.termination == "ok", search
    assert search.stdout.strip() == "SEARCHED", search.stdout
    assert_still_serves(sandbox)


def test_network_unreachable(episode):
    sandbox = episode.sandbox()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        result = sandbox.run_python(f"""
import socket
for host in ("127.0.0.1", "localhost"):
    try:
        socket.create_connection((host, {port}), timeout=2)
        print("CONNECTED", host)
    except OSError as error:
        print("BLOCKED", host, error)
""")
        # A connection the kernel completed would sit in the backlog even though nobody called accept().
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()
    assert result.termination == "ok", result
    assert "CONNECTED" not in result.stdout and result.stdout.count("BLOCKED") == 2, result
    assert_still_serves(sandbox)


def test_worker_environment_unreadable(episode):
    sandbox = episode.sandbox()
    result = sandbox.run_shell("env; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done; echo done")
    assert result.termination == "ok", result
    assert SECRET not in result.stdout + result.stderr
    assert "HOME=/workdir" in result.stdout and "OMP_NUM_THREADS=1" in result.stdout
    python = sandbox.run_python(f"import os\nprint(sorted(os.environ))\nprint(os.environ.get({SECRET_VAR!r}))")
    assert python.termination == "ok" and SECRET not in python.stdout and SECRET_VAR not in python.stdout
    assert_still_serves(sandbox)


def test_fork_bomb_contained(episode):
    sandbox = episode.sandbox()
    result = sandbox.run_python("""
import os, time
children = 0
while True:
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
    except OSError as error:
        print("LIMITED", children, error.strerror)
        break
""")
    assert result.termination == "ok", result
    assert "LIMITED" in result.stdout
    assert int(result.stdout.split()[1]) < LIMITS.processes
    # The sleepers died with the step: were they alive, they would hold the process budget the next step needs.
    assert_still_serves(sandbox)


def test_memory_limit(episode):
    sandbox = episode.sandbox()
    result = sandbox.run_python("blocks = [bytearray(64 << 20) for _ in range(200)]\nprint('ALLOCATED')")
    assert result.termination == "memory", result
    assert "ALLOCATED" not in result.stdout
    assert_still_serves(sandbox)


def _cgroup_writable(controller: str) -> bool:
    cgroup = StepCgroup(memory_mb=64, processes=8)
    try:
        return controller in cgroup.dirs
    finally:
        cgroup.remove()


@pytest.mark.skipif(not _cgroup_writable("memory"), reason="no writable memory cgroup here")
def test_memory_limit_holds_across_processes(episode):
    # Each process stays under the address-space limit, which is per process; together they pass the cgroup's.
    sandbox = episode.sandbox()
    result = sandbox.run_python("""
import os, sys
children = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        children = None
        break
    children.append(pid)
block = bytearray(300 << 20)
for index in range(0, len(block), 4096):
    block[index] = 1
if children is None:
    os._exit(0)
statuses = [os.waitpid(pid, 0)[1] for pid in children]
print("CHILDREN", statuses)
sys.exit(1 if any(os.WIFSIGNALED(status) for status in statuses) else 0)
""")
    assert result.termination == "memory", result
    assert_still_serves(sandbox)


def test_filling_the_disk(episode):
    sandbox = episode.sandbox()
    one_big_file = sandbox.run_python("""
with open("big.bin", "wb") as handle:
    for _ in range(64):
        handle.write(b"x" * (1 << 20))
""")
    assert one_big_file.termination == "error" and "File too large" in one_big_file.stderr, one_big_file
    assert (episode.workdir / "big.bin").stat().st_size <= LIMITS.file_size_mb << 20
    (episode.workdir / "big.bin").unlink()
    (episode.workdir / "keep.txt").write_text("earlier work")
    many_files = sandbox.run_python("""
import os
os.makedirs("fill", exist_ok=True)
for index in range(10_000):
    with open(f"fill/{index}.bin", "wb") as handle:
        handle.write(b"x" * (4 << 20))
print("FILLED")
""")
    assert many_files.termination == "killed", many_files
    assert "FILLED" not in many_files.stdout and "quota" in many_files.stderr
    assert tree_usage_bytes(str(episode.workdir)) <= LIMITS.workdir_mb << 20
    assert not (episode.workdir / "fill").exists()
    assert (episode.workdir / "keep.txt").read_text() == "earlier work"
    tmp = sandbox.run_python("""
import errno
try:
    for index in range(100):
        with open(f"/tmp/{index}.bin", "wb") as handle:
            handle.write(b"x" * (4 << 20))
except OSError as error:
    print("STOPPED", errno.errorcode[error.errno], index)
""")
    assert tmp.termination == "ok", tmp
    assert tmp.stdout.split()[:2] == ["STOPPED", "ENOSPC"]
    assert_still_serves(sandbox)


def test_infinite_loop_times_out_and_takes_its_children(episode):
    sandbox = episode.sandbox(timeout_s=LOOP_TIMEOUT_S)
    result = sandbox.run_python("""
import os, time
if os.fork() == 0:
    os.setsid()
    while True:
        with open("heartbeat", "w") as handle:
            handle.write(str(time.time()))
        time.sleep(0.05)
while True:
    pass
""")
    assert result.termination == "timeout" and result.exit_code is None, result
    # Stopped by its own wall limit: not before it, and long before any other limit (60 s for the rest of LIMITS);
    # the margin is wide because a loaded 2-core machine can take seconds to kill and reap a step's tree.
    assert LOOP_TIMEOUT_S <= result.wall_s < LOOP_TIMEOUT_S + 15.0, result
    if _cgroup_writable("cpuacct"):  # else only waited-for processes count, and the killed loop was not waited for
        assert result.cpu_s > 0.2, result
    assert_heartbeat_stopped(episode.workdir / "heartbeat")
    assert_still_serves(episode.sandbox())


def test_daemon_dies_with_its_step(episode):
    sandbox = episode.sandbox()
    result = sandbox.run_python("""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            with open("heartbeat", "w") as handle:
                handle.write(str(time.time()))
            time.sleep(0.05)
    os._exit(0)
time.sleep(0.3)
print("LEFT")
""")
    assert result.termination == "ok" and result.stdout.strip() == "LEFT", result
    assert_heartbeat_stopped(episode.workdir / "heartbeat")
    assert_still_serves(sandbox)


def assert_heartbeat_stopped(heartbeat: Path) -> None:
    assert heartbeat.exists()
    before = heartbeat.stat().st_mtime_ns
    time.sleep(0.5)
    assert heartbeat.stat().st_mtime_ns == before, "a process of the finished step is still running"


def test_killing_parent_everything_and_itself(episode):
    sandbox = episode.sandbox()
    parent = sandbox.run_python("""
import os, signal
print(os.getppid(), flush=True)
for target in (os.getppid(), 1):
    try:
        os.kill(target, signal.SIGKILL)
    except PermissionError:
        print("REFUSED", target, flush=True)
print("after")
""")
    if parent.stdout.split()[0] == "0":
        # The warm step's parent is outside its PID namespace, so it reads as pid 0, and kill(0) signals the
        # step's own process group: the step kills itself, and only itself.
        assert parent.termination == "killed" and parent.exit_code == -9, parent
    else:
        # The cold step's parent is its namespace's init, which is root.
        assert parent.termination == "ok" and parent.stdout.split()[1:] == ["REFUSED", "1", "REFUSED", "1", "after"]
    init = sandbox.run_python("""
import os, signal
try:
    os.kill(1, signal.SIGKILL)
except PermissionError:
    print("REFUSED")
""")
    assert init.termination == "ok" and init.stdout.strip() == "REFUSED", init
    assert_still_serves(sandbox)
    worker = sandbox.run_python(f"""
import os, signal
try:
    os.kill({os.getpid()}, signal.SIGKILL)
    print("SENT")
except ProcessLookupError:
    print("NO SUCH PROCESS")
""")
    assert worker.termination == "ok" and worker.stdout.strip() == "NO SUCH PROCESS", worker
    assert_still_serves(sandbox)
    everything = sandbox.run_shell("kill -9 -1; sleep 0.2; echo survived")
    assert everything.termination == "ok" and everything.stdout.strip() == "survived", everything
    assert_still_serves(sandbox)
    itself = sandbox.run_python("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    assert itself.termination == "killed" and itself.exit_code == -9, itself
    assert_still_serves(sandbox)
    terminated = sandbox.run_python("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)")
    assert terminated.termination == "killed" and terminated.exit_code == -15, terminated
    exited = sandbox.run_python("import sys\nsys.exit(3)")
    assert exited.termination == "error" and exited.exit_code == 3, exited
    assert_still_serves(sandbox)
