"""A step learns no host path: mount tables, /proc/self/*, the warm interpreter's frames and objects, and cgroups
show nothing that locates the bundle, the data directory, the episode or the zygote; both sandbox paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.sandbox import Limits, Sandbox, SandboxPool
from sandmle.sandbox.cgroups import StepCgroup, own_cgroup_dir

LIMITS = Limits(timeout_s=60.0, memory_mb=512, file_size_mb=8, workdir_mb=32, processes=32)

PROC_READER = r"""
import os
out = []
for name in ("/proc/self/mountinfo", "/proc/mounts", "/proc/self/mounts", "/proc/self/cmdline", "/proc/self/environ",
             "/proc/self/maps", "/proc/self/cgroup", "/proc/1/cmdline", "/proc/1/mountinfo"):
    try:
        out.append(open(name, "rb").read().decode("utf-8", "replace"))
    except OSError as error:
        out.append(f"{name}: {error}")
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["self"]:
    for link in ("cwd", "root", "exe"):
        try:
            out.append(os.readlink(f"/proc/{pid}/{link}"))
        except OSError:
            pass
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            out.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
    except OSError:
        pass
try:
    open("/public/no-such-file")
except OSError as error:
    out.append(str(error))
print("\n".join(out))
print("READ-ALL")
"""

# Inside a warm step: every frame up the stack (and every thread's), and every object the collector tracks with
# what they refer to, turned into text and searched for the paths the test passes in.
FRAME_WALKER = r"""
import gc, sys
# Given reversed, so that the step's own source and constants do not hold the paths it looks for.
needles = [needle[::-1] for needle in REVERSED_NEEDLES]
found = set()
def look(value):
    if isinstance(value, (str, bytes)):
        text = value if isinstance(value, str) else value.decode("latin-1")
        for needle in needles:
            if needle in text:
                found.add(needle)
mine = {id(needles), id(found), id(globals())}
frames = [sys._getframe().f_back] + [frame for frame in sys._current_frames().values() if frame is not sys._getframe()]
walked = 0
while frames:
    frame = frames.pop()
    while frame is not None:
        walked += 1
        for scope in (frame.f_locals, frame.f_globals):
            if id(scope) in mine:
                continue
            for key, value in list(scope.items()):
                look(key)
                look(value)
                if isinstance(value, (dict, list, tuple, set)) and id(value) not in mine:
                    for inner in (value.values() if isinstance(value, dict) else value):
                        look(inner)
        frame = frame.f_back
objects = gc.get_objects()
mine.add(id(objects))
for item in objects:
    if id(item) in mine:
        continue
    try:
        for inner in gc.get_referents(item):
            look(inner)
    except Exception:
        pass
look(" ".join(sys.argv))
print("FRAMES", walked, "OBJECTS", len(objects))
print("FOUND", sorted(needle[::-1] for needle in found))
"""


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=("numpy",)) as shared_pool:
        yield shared_pool


@pytest.fixture(params=["warm", "cold"])
def layout(request, tmp_path, pool):
    data_dir = tmp_path / "data-dir-marker"
    task_dir = data_dir / "tasks" / "task-id-marker"
    (task_dir / "public").mkdir(parents=True)
    (task_dir / "private").mkdir()
    (task_dir / "public" / "train.csv").write_text("id,x,y\n1,0.5,1\n")
    (task_dir / "private" / "answers.csv").write_text("id,y\n1,TOPSECRETANSWER\n")
    workdir = data_dir / "episodes" / "episode-marker" / "workdir"
    sandbox = Sandbox(public_dir=task_dir / "public", workdir=workdir, limits=LIMITS,
                      pool=pool if request.param == "warm" else None)
    yield sandbox, task_dir, workdir
    sandbox.close()


def host_markers(task_dir: Path, workdir: Path) -> list[str]:
    return [str(task_dir), str(workdir), "data-dir-marker", "task-id-marker", "episode-marker"]


def test_proc_and_mount_tables_name_no_host_path(layout):
    sandbox, task_dir, workdir = layout
    result = sandbox.run_python(PROC_READER)
    assert result.termination == "ok", result
    assert "READ-ALL" in result.stdout
    assert "sandmle-zygote-" not in result.stdout  # the warm zygote's own directory, as in its command line
    assert "/public /public" not in result.stdout  # the mount table was read
    assert " /public " in result.stdout and " /workdir " in result.stdout
    for marker in host_markers(task_dir, workdir):
        assert marker not in result.stdout + result.stderr, marker
    shell = sandbox.run_shell("cat /proc/self/mountinfo /proc/mounts; ls -la /proc/self/fd /proc/self/cwd; pwd")
    assert shell.termination == "ok", shell
    for marker in host_markers(task_dir, workdir):
        assert marker not in shell.stdout + shell.stderr, marker
    # The step's files are where the host expects them, and the public files were staged, not moved.
    (workdir / "note.txt").write_text("from the host\n")
    echo = sandbox.run_shell("cat note.txt; cat /public/train.csv | head -1; echo made > made.txt")
    assert echo.stdout.split() == ["from", "the", "host", "id,x,y"]
    assert (workdir / "made.txt").read_text() == "made\n" and (task_dir / "public" / "train.csv").exists()


def test_private_unreadable_through_a_learned_path(layout):
    sandbox, task_dir, _workdir = layout
    answers = task_dir / "private" / "answers.csv"
    result = sandbox.run_python(f"""
for path in ({str(answers)!r}, "/public/../private/answers.csv", "/proc/self/root{answers}", "/proc/1/root{answers}"):
    try:
        print("READ", open(path).read())
    except OSError as error:
        print("DENIED", type(error).__name__)
""")
    assert result.termination == "ok", result
    assert "TOPSECRETANSWER" not in result.stdout and result.stdout.count("DENIED") == 4


def test_warm_step_frames_and_objects_hold_no_host_path(tmp_path, pool):
    # The warm path's concern only: a cold step is a fresh interpreter that never held the host's request.
    task_dir = tmp_path / "data-dir-marker" / "tasks" / "task-id-marker"
    (task_dir / "public").mkdir(parents=True)
    workdir = tmp_path / "data-dir-marker" / "episodes" / "episode-marker" / "workdir"
    sandbox = Sandbox(public_dir=task_dir / "public", workdir=workdir, limits=LIMITS, pool=pool)
    sandbox.run_shell("true")  # the zygote is started and idle, so its directory is known
    zygote_state = str(pool._idle[0].state_dir) if pool._idle else "sandmle-zygote-"
    needles = host_markers(task_dir, workdir) + [zygote_state, "/sys/fs/cgroup", ".sandmle-stage"]
    reversed_needles = json.dumps([needle[::-1] for needle in needles])
    result = sandbox.run_python(FRAME_WALKER.replace("REVERSED_NEEDLES", reversed_needles))
    assert result.termination == "ok", result
    words = result.stdout.split()
    assert int(words[1]) >= 3 and int(words[3]) > 1000, result.stdout  # it did walk the zygote's stack and heap
    assert result.stdout.strip().endswith("FOUND []"), result.stdout
    sandbox.close()


def _writable(controller: str) -> bool:
    group = StepCgroup(memory_mb=64, processes=8)
    try:
        return controller in group.dirs
    finally:
        group.remove()


@pytest.mark.skipif(not _writable("memory"), reason="no writable cgroup v1 memory controller here")
def test_step_cgroups_live_under_the_worker_own_group():
    own = own_cgroup_dir("memory")
    group = StepCgroup(memory_mb=64, processes=8)
    try:
        assert group.dirs["memory"].parent == own
        for controller, path in group.dirs.items():
            assert path.parent == own_cgroup_dir(controller)
    finally:
        group.remove()
    assert not own.joinpath(group.dirs["memory"].name).exists()


def test_own_cgroup_dir_reads_proc_self_cgroup(tmp_path):
    listing = tmp_path / "cgroup"
    listing.write_text("4:memory:/service/worker-7\n2:cpu,cpuacct:/service/worker-7\n0::/\n")
    assert own_cgroup_dir("memory", proc_cgroup=str(listing)).parts[-3:] == ("memory", "service", "worker-7")
    assert own_cgroup_dir("cpuacct", proc_cgroup=str(listing)).parts[-2:] == ("service", "worker-7")
    assert own_cgroup_dir("pids", proc_cgroup=str(listing)).name == "pids"


def test_staging_is_removed_and_the_workdir_restored(tmp_path):
    public = tmp_path / "task" / "public"
    (public / "images").mkdir(parents=True)
    (public / "images" / "0.png").write_bytes(b"png")
    (public / "train.csv").write_text("id\n1\n")
    workdir = tmp_path / "episode"
    sandbox = Sandbox(public_dir=public, workdir=workdir, limits=LIMITS)
    staged = sandbox._staged_public
    assert staged is not None and str(tmp_path) not in str(staged)
    assert (staged / "images" / "0.png").read_bytes() == b"png"
    # A step that fails still leaves the scratch dir where the host keeps it.
    result = sandbox.run_python("import os\nopen('kept.txt', 'w').write('x')\nos._exit(9)")
    assert result.exit_code == 9 and (workdir / "kept.txt").read_text() == "x"
    sandbox.close()
    assert not staged.exists() and (public / "train.csv").exists()


# Libraries that keep the working directory they were imported in (multiprocessing.process.ORIGINAL_DIR, its fork
# multiprocess's, rich._IMPORT_CWD): preloaded in a zygote, each would hold the zygote's host folder for every step.
CWD_KEEPERS = ("multiprocessing", "multiprocess", "rich", "joblib")


def test_warm_step_objects_hold_no_host_path_even_from_libraries_that_keep_their_import_cwd(tmp_path):
    task_dir = tmp_path / "data-dir-marker" / "tasks" / "task-id-marker"
    (task_dir / "public").mkdir(parents=True)
    workdir = tmp_path / "data-dir-marker" / "episodes" / "episode-marker" / "workdir"
    with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=CWD_KEEPERS) as keepers_pool:
        sandbox = Sandbox(public_dir=task_dir / "public", workdir=workdir, limits=LIMITS, pool=keepers_pool)
        sandbox.run_shell("true")
        zygote_state = str(keepers_pool._idle[0].state_dir)
        needles = host_markers(task_dir, workdir) + [zygote_state, "sandmle-zygote-", "/sys/fs/cgroup"]
        result = sandbox.run_python(FRAME_WALKER.replace("REVERSED_NEEDLES",
                                                         json.dumps([needle[::-1] for needle in needles])))
        # The libraries are there, and what they kept is a path of the step's own world.
        kept = sandbox.run_python("import sys, multiprocessing.process as mp\n"
                                  "print(mp.ORIGINAL_DIR, sys.modules['rich']._IMPORT_CWD)")
        sandbox.close()
    assert result.termination == "ok", result
    assert result.stdout.strip().endswith("FOUND []"), result.stdout
    assert kept.termination == "ok", kept
    assert kept.stdout.split() == ["/workdir", "/workdir"], kept.stdout
