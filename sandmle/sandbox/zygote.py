"""The warm zygote: a scrubbed, pre-imported Python that forks a fresh, namespaced, unprivileged child per step.

Run by SandboxPool as a standalone script (stdlib plus the preloaded libraries only: the child inherits
its memory). Protocol: one JSON request per line on stdin, one JSON reply per line on stdout.
The zygote itself never runs agent code; each child unshares mount/net/ipc/uts/pid namespaces, builds a
tmpfs root holding only /usr, the Python prefix, /public (ro) and /workdir (rw), pivots into it and drops
to uid 65534 before it runs the step.

Process tree of a step: zygote -> outer child (own process group, the step's cgroups) -> namespace init
(PID 1) -> the step (PID 2). The step runs below PID 1 because the kernel shields a namespace's init from
signals sent inside it, so a step that signals itself dies as anywhere else, while one that kills its
parent cannot. Ending the step means killing the outer child's process group: the init dies with it
(same group, and a parent-death signal as a second line), and the kernel then kills everything left in
the PID namespace, whatever sessions or groups the step made.
"""

import ctypes
import json
import os
import resource
import select
import signal
import sys
import time
import traceback

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x4000000, 0x8000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
UID = 65534
# How often a running step's scratch dir is measured; a disk filler overshoots its quota by at most this much writing.
WATCH_INTERVAL_S = 0.2
# Each file or directory costs at least one block, so millions of empty files count against the quota as well.
MIN_ENTRY_BYTES = 4096
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source, target, fstype, flags, data=None):
    _check(libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(), flags,
                      data and data.encode()), f"mount {source} {target}")


def bind(source, target, *, read_only):
    mount(source, target, None, MS_BIND | MS_REC)
    flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | (MS_RDONLY if read_only else 0)
    mount(None, target, None, flags)


def build_root(root, request):
    """Mount a tmpfs root with only what a step needs; returns after pivot_root into it."""
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    for link, target in (("lib", "usr/lib"), ("lib64", "usr/lib64"), ("bin", "usr/bin"), ("sbin", "usr/sbin")):
        os.symlink(target, os.path.join(root, link))
    binds = [("/usr", True)] + [(path, True) for path in request["python_dirs"]]
    for source, read_only in binds:
        target = root + source
        os.makedirs(target, exist_ok=True)
        bind(source, target, read_only=read_only)
    os.makedirs(root + "/etc")
    with open(root + "/etc/passwd", "w") as handle:
        handle.write("nobody:x:65534:65534:nobody:/workdir:/usr/sbin/nologin\n")
    with open(root + "/etc/group", "w") as handle:
        handle.write("nogroup:x:65534:\n")
    for etc_file in ("/etc/ld.so.cache", "/etc/localtime"):
        if os.path.exists(etc_file):
            open(root + etc_file, "w").close()
            bind(etc_file, root + etc_file, read_only=True)
    for name in ("public", "workdir", "tmp", "proc", "dev", ".old_root"):
        os.makedirs(os.path.join(root, name))
    bind(request["public_dir"], root + "/public", read_only=True)
    bind(request["workdir"], root + "/workdir", read_only=False)
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={request['tmp_mb']}m,mode=1777")
    mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID, "size=64k,mode=0755")
    for device in ("null", "zero", "random", "urandom", "full"):
        open(root + "/dev/" + device, "w").close()
        mount("/dev/" + device, root + "/dev/" + device, None, MS_BIND)
    os.symlink("/proc/self/fd", root + "/dev/fd")
    _check(libc.syscall(155, root.encode(), (root + "/.old_root").encode()), "pivot_root")
    os.chdir("/")
    _check(libc.umount2(b"/.old_root", MNT_DETACH), "umount old root")
    os.rmdir("/.old_root")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def apply_limits(limits, *, include_nproc):
    cpu = int(limits["cpu_s"] if limits["cpu_s"] is not None else max(1.0, limits["timeout_s"])) + 1
    rlimits = [(resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, limits["memory_mb"] << 20),
               (resource.RLIMIT_FSIZE, limits["file_size_mb"] << 20),
               (resource.RLIMIT_NOFILE, limits["open_files"]), (resource.RLIMIT_CORE, 0)]
    if include_nproc:
        rlimits.append((resource.RLIMIT_NPROC, limits["processes"]))
    for which, value in rlimits:
        resource.setrlimit(which, (value, value))


def tree_usage_bytes(path, *, stop_above=None):
    """Disk use of a directory tree (blocks, at least MIN_ENTRY_BYTES an entry); stops early past stop_above."""
    total = 0
    pending = [path]
    while pending:
        try:
            entries = os.scandir(pending.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += max(info.st_blocks * 512, MIN_ENTRY_BYTES)
                if stop_above is not None and total > stop_above:
                    return total
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
    return total


def watch_step(pidfd, *, deadline, workdir, quota_bytes):
    """Wait for a step to exit while measuring its scratch dir: returns "exited", "timeout" or "workdir_quota"."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        ready, _w, _x = select.select([pidfd], [], [], min(remaining, WATCH_INTERVAL_S))
        if ready:
            return "exited"
        if tree_usage_bytes(workdir, stop_above=quota_bytes) > quota_bytes:
            return "workdir_quota"


def _exit_like(status):
    """Leave with the exit code, or 128 + signal, of a waited-for child: a parent reports its child's end."""
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def step_child(request, root, zygote_pid):
    """Runs in the fork: namespaces, root, uid drop, limits, then the agent's code. Never returns."""
    code = 1
    try:
        # A zygote that dies (a closing or crashed pool) takes its running step with it.
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != zygote_pid:
            os._exit(1)
        os.setpgid(0, 0)
        for cgroup_dir in request["cgroup_dirs"]:
            with open(os.path.join(cgroup_dir, "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))
        out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0), os.dup2(out, 1), os.dup2(err, 2)
        for fd in (null, out, err):
            os.close(fd)
        os.closerange(3, 1 << 16)
        _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID), "unshare")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        init = os.fork()
        if init:
            # Forwards the namespace init's status; its death takes the whole PID namespace with it.
            _exit_like(os.waitpid(init, 0)[1])
        # The namespace's PID 1: it dies when the outer child dies, even if it were somehow outside its group.
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        step = os.fork()
        if step:
            _exit_like(os.waitpid(step, 0)[1])
        build_root(root, request)
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.chdir("/workdir")
        os.environ.clear()
        os.environ.update(request["env"])
        apply_limits(request["limits"], include_nproc=request["nproc_rlimit"])
        if request["kind"] == "shell":
            os.execve("/bin/sh", ["sh", "-c", request["payload"]], request["env"])
        sys.path[:] = [p for p in sys.path if not p.startswith(request["zygote_dir"])]
        sys.argv = ["step.py"]
        namespace = {"__name__": "__main__", "__file__": "/workdir/step.py", "__builtins__": __builtins__}
        try:
            exec(compile(request["payload"], "step.py", "exec"), namespace)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if not isinstance(stop.code, (int, type(None))):
                print(stop.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:
            pass
    os._exit(code)


def serve(root):
    zygote_pid = os.getpid()
    for line in sys.stdin:
        request = json.loads(line)
        limits = request["limits"]
        start = time.monotonic()
        before = os.times()
        pid = os.fork()
        if pid == 0:
            step_child(request, root, zygote_pid)
        try:
            os.setpgid(pid, pid)  # also done by the child; doing it here too leaves no window for killpg to miss
        except OSError:
            pass
        pidfd = os.pidfd_open(pid)
        ended = watch_step(pidfd, deadline=start + limits["timeout_s"], workdir=request["workdir"],
                           quota_bytes=limits["workdir_mb"] << 20)
        if ended != "exited":
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _pid, status = os.waitpid(pid, 0)
        os.close(pidfd)
        after = os.times()
        returncode = os.waitstatus_to_exitcode(status)
        if returncode > 128:
            returncode = -(returncode - 128)
        reply = {"returncode": returncode, "timed_out": ended == "timeout", "wall_s": time.monotonic() - start,
                 "cpu_s": after.children_user - before.children_user
                 + after.children_system - before.children_system}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def main():
    root = sys.argv[1]
    for module in sys.argv[2:]:
        try:
            __import__(module)
        except ImportError:
            pass
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    serve(root)


if __name__ == "__main__":
    main()
