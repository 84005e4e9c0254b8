"""Escape attempts against the sandbox, through the warm pool and the cold bwrap path: each is contained."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from sandmle.sandbox import Limits, Sandbox, SandboxPool

SECRET = "sandmle-test-secret-value-4242"


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=("numpy",)) as shared_pool:
        yield shared_pool


@pytest.fixture(params=["warm", "cold"])
def episode(request, tmp_path, pool):
    task_dir = tmp_path / "task"
    (task_dir / "public").mkdir(parents=True)
    (task_dir / "private").mkdir()
    (task_dir / "public" / "train.csv").write_text("id,x,y\n1,0.5,1\n")
    (task_dir / "private" / "answers.csv").write_text("id,y,leaderboard\n1,TOPSECRETANSWER,public\n")
    other = tmp_path / "episodes" / "other"
    other.mkdir(parents=True)
    (other / "notes.txt").write_text("OTHER-EPISODE-STATE")
    workdir = tmp_path / "episodes" / "mine"
    limits = Limits(timeout_s=3.0, memory_mb=768, file_size_mb=8, processes=32)
    sandbox = Sandbox(public_dir=task_dir / "public", workdir=workdir, limits=limits,
                      pool=pool if request.param == "warm" else None)
    return sandbox, task_dir


def assert_still_serves(sandbox: Sandbox) -> None:
    result = sandbox.run_python("print(open('/public/train.csv').read().splitlines()[0])")
    assert result.termination == "ok", result
    assert result.stdout.strip() == "id,x,y"


def test_private_answers_unreachable(episode):
    sandbox, task_dir = episode
    answers = task_dir / "private" / "answers.csv"
    code = f"""
import os
paths = ["../private/answers.csv", "/public/../private/answers.csv", {str(answers)!r},
         "/proc/1/root{answers}", "/proc/self/cwd/../private/answers.csv", "/proc/self/root{answers}"]
found = []
for path in paths:
    try:
        found.append(open(path).read())
    except OSError:
        pass
for root, _dirs, files in os.walk("/", onerror=None):
    if root.startswith(("/proc", "/sys", "/usr", "/dev")):
        continue
    for name in files:
        if name == "answers.csv":
            found.append(os.path.join(root, name))
print("FOUND" if found else "NONE", found)
"""
    result = sandbox.run_python(code)
    assert result.termination == "ok", result
    assert result.stdout.startswith("NONE")
    assert "TOPSECRETANSWER" not in result.stdout
    assert_still_serves(sandbox)


def test_other_episodes_invisible(episode):
    sandbox, _task_dir = episode
    result = sandbox.run_shell("ls -a /workdir/..; cat /workdir/../other/notes.txt; grep -r OTHER-EPISODE / "
                               "--exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null; echo done")
    assert "OTHER-EPISODE-STATE" not in result.stdout
    assert "other" not in result.stdout.split("done")[0].split()
    assert_still_serves(sandbox)


def test_network_unreachable(episode):
    sandbox, _task_dir = episode
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted: list[bool] = []

    def accept() -> None:
        server.settimeout(4)
        try:
            server.accept()
            accepted.append(True)
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    result = sandbox.run_python(f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1)
    print("CONNECTED")
except OSError as error:
    print("BLOCKED", error)
""")
    server.close()
    thread.join()
    assert "BLOCKED" in result.stdout, result
    assert not accepted
    assert_still_serves(sandbox)


def test_environment_scrubbed(episode, monkeypatch):
    sandbox, _task_dir = episode
    monkeypatch.setenv("SANDMLE_TEST_SECRET", SECRET)
    result = sandbox.run_shell("env; cat /proc/1/environ; cat /proc/self/environ")
    assert SECRET not in result.stdout + result.stderr
    assert "HOME=/workdir" in result.stdout and "OMP_NUM_THREADS=1" in result.stdout
    assert_still_serves(sandbox)


def test_fork_bomb_contained(episode):
    sandbox, _task_dir = episode
    result = sandbox.run_python("""
import os, time
children = 0
while True:
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
    except OSError:
        break
print("LIMITED", children)
""")
    assert result.termination in ("ok", "timeout"), result
    if result.termination == "ok":
        assert "LIMITED" in result.stdout
    assert_still_serves(sandbox)


def test_memory_limit(episode):
    sandbox, _task_dir = episode
    result = sandbox.run_python("blocks = [bytearray(64 << 20) for _ in range(200)]\nprint('ALLOCATED')")
    assert result.termination == "memory", result
    assert "ALLOCATED" not in result.stdout
    assert_still_serves(sandbox)


def test_file_size_and_tmpfs_limits(episode):
    sandbox, _task_dir = episode
    result = sandbox.run_python("""
import os
with open("big.bin", "wb") as handle:
    for _ in range(64):
        handle.write(b"x" * (1 << 20))
""")
    assert result.termination in ("error", "killed"), result
    assert os.path.getsize(Path(sandbox.workdir) / "big.bin") <= 8 << 20
    result = sandbox.run_shell("dd if=/dev/zero of=/tmp/fill bs=1M count=64; echo rc=$?")
    assert "rc=0" not in result.stdout
    assert_still_serves(sandbox)


def test_infinite_loop_times_out(episode):
    sandbox, _task_dir = episode
    result = sandbox.run_python("while True:\n    pass")
    assert result.termination == "timeout"
    assert result.exit_code is None
    assert result.wall_s < 3.0 + 2.0
    assert_still_serves(sandbox)


def test_killing_parent_and_everything(episode):
    sandbox, _task_dir = episode
    result = sandbox.run_python("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('after')")
    assert result.termination in ("ok", "error", "killed"), result
    assert_still_serves(sandbox)
    result = sandbox.run_shell("kill -9 -1; sleep 0.2; echo survived")
    assert result.termination in ("ok", "killed"), result
    assert_still_serves(sandbox)
    result = sandbox.run_python("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    assert result.termination == "killed"
    assert_still_serves(sandbox)
