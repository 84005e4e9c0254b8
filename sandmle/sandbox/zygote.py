"""The warm zygote: a scrubbed, pre-imported Python that forks a fresh, namespaced, unprivileged child per step.

Run by SandboxPool as a standalone script (stdlib plus the preloaded libraries only: the child inherits
its memory). Protocol: one JSON request per line on stdin, one JSON reply per line on stdout.
The zygote itself never runs agent code; each child unshares mount/net/ipc/uts/pid namespaces, builds a
tmpfs root holding only /usr, the Python prefix, /public (ro) and /workdir (rw), pivots into it and drops
to uid 65534 before it runs the step.

Process tree of a step: zygote -> keeper (its own process group; outside the step's PID namespace) ->
{the namespace's init (PID 1, a spawned `cat`, not a fork), the step (PID 2)}. The step runs below PID 1
because the kernel shields a namespace's init from signals sent inside it, so a step that signals itself
dies as anywhere else; the init and keeper are root, so the step (uid 65534) cannot signal them. Ending a
step kills the init, and the kernel then kills everything left in the PID namespace, whatever sessions
or groups the step made; killing the keeper's group does the same from the outside.
"""

import ctypes
import json
import linecache
import os
import resource
import select
import signal
import sys
import time
import traceback

CLONE_NEWCGROUP = 0x02000000
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
                      data and data.encode()), f"mount {os.path.basename(target) or '/'}")


def bind(source, target, *, read_only):
    mount(source, target, None, MS_BIND | MS_REC)
    flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | (MS_RDONLY if read_only else 0)
    mount(None, target, None, flags)


def build_root(root, request):
    """Mount a tmpfs root with only what a step needs; returns after pivot_root into it."""
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    for link, target in (("lib", "usr/lib"), ("lib64", "usr/lib64"), ("bin", "usr/bin"), ("sbin", "usr/sbin")):
        os.symlink(target, os.path.join(root, link))
    # The step's /tmp first: a Python environment that lives under the host's /tmp is then bound inside it, not hidden.
    os.makedirs(root + "/tmp")
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={request['tmp_mb']}m,mode=1777")
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
    for name in ("public", "workdir", "proc", "dev", ".old_root"):
        os.makedirs(os.path.join(root, name))
    bind(request["public_dir"], root + "/public", read_only=True)
    bind(request["workdir"], root + "/workdir", read_only=False)
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


def watch_step(end_fd, *, deadline, workdir, quota_bytes):
    """Wait until end_fd (a pidfd, or a pipe) turns readable while measuring the scratch dir.

    Returns "exited", "timeout" or "workdir_quota".
    """
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        ready, _w, _x = select.select([end_fd], [], [], min(remaining, WATCH_INTERVAL_S))
        if ready:
            return "exited"
        if tree_usage_bytes(workdir, stop_above=quota_bytes) > quota_bytes:
            return "workdir_quota"


def _redirect_output(request, *, keep_fd):
    """Point stdin at /dev/null and stdout/stderr at the step's files; close every other descriptor but keep_fd."""
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0), os.dup2(out, 1), os.dup2(err, 2)
    for fd in (null, out, err):
        os.close(fd)
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, 1 << 16)


def step_tree(request, state, zygote_pid, report_fd):
    """The step's keeper, outside its namespaces' PID view: makes them, starts their init, forks the step, waits.

    The init is a tiny program (cat on a pipe only this process writes to), not a fork of this big interpreter:
    each fork of a process holding pandas and scikit-learn costs tens of milliseconds, so a step pays for two
    (this keeper and the step), not three. The init dies when its pipe closes, so it cannot outlive its keeper.
    Writes {"returncode", "cpu_s"} to report_fd once the step and everything it started are gone. Never returns.
    """
    try:
        # A zygote that dies (a closing or crashed pool) takes its running step with it.
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != zygote_pid:
            os._exit(1)
        os.setpgid(0, 0)
        _redirect_output(request, keep_fd=report_fd)
        _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID), "unshare")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        init_stdin, init_lifeline = os.pipe()
        init = os.posix_spawn(_init_program(), ["sandmle-init"], {}, file_actions=[
            (os.POSIX_SPAWN_DUP2, init_stdin, 0),
            (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)])
        os.close(init_stdin)
        before = os.times()
        step = os.fork()
        if step == 0:
            run_step(request, state)
        _pid, status = os.waitpid(step, 0)
        after = os.times()
        # The namespace dies with its init: the kernel kills whatever the step left running, then init is reaped.
        os.kill(init, signal.SIGKILL)
        os.close(init_lifeline)
        os.waitpid(init, 0)
        report = {"returncode": os.waitstatus_to_exitcode(status),
                  "cpu_s": after.children_user - before.children_user + after.children_system - before.children_system}
        os.write(report_fd, json.dumps(report).encode() + b"\n")
        os._exit(0)
    except BaseException:
        _report_crash()
    os._exit(1)


def _report_crash():
    """Print the sandbox's own failure to the step's stderr; nothing may escape a forked child."""
    try:
        traceback.print_exc()
        sys.stderr.flush()
    except BaseException:
        pass


def _init_program():
    return next(path for path in ("/usr/bin/cat", "/bin/cat") if os.path.exists(path))


# Module globals that keep the working directory their library was imported in, as (module, attribute).
IMPORT_CWD_KEEPERS = (("multiprocessing.process", "ORIGINAL_DIR"), ("multiprocess.process", "ORIGINAL_DIR"),
                      ("rich", "_IMPORT_CWD"))


def rebase_import_cwd(cwd):
    """Point the libraries that remember their import-time directory at the step's own (spawned multiprocessing
    children start there). The zygote imports from "/" (main), so they never held a host path; this makes them
    read as they would in a script started in /workdir."""
    for module_name, attribute in IMPORT_CWD_KEEPERS:
        module = sys.modules.get(module_name)
        if module is not None and isinstance(getattr(module, attribute, None), str):
            setattr(module, attribute, cwd)


def forget_host_state(request, state):
    """Drop every host path this process holds before agent code runs in it.

    The step is a fork of this interpreter, so it could walk its frames (sys._getframe().f_back ...) or
    gc.get_objects() back to the request and the zygote's state: the zygote's directory, the staged bind
    sources, the cgroup paths. The dicts are emptied in place (the outer frames hold them), and what they
    held is then freed by reference counting (nothing there forms a cycle), so no Python object in the step names
    a host path. No gc.collect(): a full collection writes to every object's header, copying the zygote's pages.
    """
    request.clear()
    state.clear()


def run_step(request, state):
    """The step, PID 2 of its namespace: cgroups, root, uid drop, limits, then the agent's code. Never returns."""
    code = 1
    try:
        os.closerange(3, 1 << 16)  # the keeper's report and init pipes
        for cgroup_procs in [os.path.join(path, "cgroup.procs") for path in request["cgroup_dirs"]]:
            with open(cgroup_procs, "w") as handle:
                handle.write(str(os.getpid()))
        del cgroup_procs
        # A cgroup namespace: /proc/self/cgroup then reads "/" instead of the worker's group path.
        libc.unshare(CLONE_NEWCGROUP)
        build_root(state["root"], request)
        kind, payload, env = request["kind"], request["payload"], request["env"]
        limits, nproc_rlimit, zygote_dir = request["limits"], request["nproc_rlimit"], request["zygote_dir"]
        forget_host_state(request, state)
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after the uid change, which clears it
        os.chdir("/workdir")
        rebase_import_cwd("/workdir")
        os.environ.clear()
        os.environ.update(env)
        apply_limits(limits, include_nproc=nproc_rlimit)
        if kind == "shell":
            os.execve("/bin/sh", ["sh", "-c", payload], env)
        sys.path[:] = [p for p in sys.path if not p.startswith(zygote_dir)]
        sys.argv = ["step.py"]
        namespace = {"__name__": "__main__", "__file__": "/workdir/step.py", "__builtins__": __builtins__}
        # Tracebacks then quote the agent's lines, as they would for a script run from a file.
        linecache.cache["step.py"] = (len(payload), None, payload.splitlines(True), "step.py")
        try:
            exec(compile(payload, "step.py", "exec"), namespace)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if not isinstance(stop.code, (int, type(None))):
                print(stop.code, file=sys.stderr)
        except BaseException as error:
            # Starting at the agent's own frame: this file's frame means nothing to the agent.
            traceback.print_exception(type(error), error, error.__traceback__.tb_next)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        _report_crash()
    os._exit(code)


def _read_report(fd):
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 4096)
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


def serve(state):
    zygote_pid = os.getpid()
    while True:
        # Bytes, not text: a text reader keeps the decoded chunk (this request's paths) as an object a step could find.
        line = sys.stdin.buffer.readline()
        if not line:
            return
        request = json.loads(line)
        del line
        limits = request["limits"]
        start = time.monotonic()
        report_r, report_w = os.pipe()
        keeper = os.fork()
        if keeper == 0:
            os.close(report_r)
            step_tree(request, state, zygote_pid, report_w)
        os.close(report_w)
        try:
            os.setpgid(keeper, keeper)  # also done by the keeper; doing it here too leaves killpg no window to miss
        except OSError:
            pass
        # The report pipe turns readable when the keeper reports, or at EOF when it died without reporting.
        ended = watch_step(report_r, deadline=start + limits["timeout_s"], workdir=request["workdir"],
                           quota_bytes=limits["workdir_mb"] << 20)
        report = _read_report(report_r) if ended == "exited" else None
        os.close(report_r)
        keeper_reaped = report is None
        if report is None:
            # Timeout, quota, or a keeper that died: its group holds the keeper, the init and (unless it left
            # the group) the step; the init's death ends the PID namespace and everything in it.
            try:
                os.killpg(keeper, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _pid, status = os.waitpid(keeper, 0)
            report = {"returncode": -signal.SIGKILL if ended != "exited" else os.waitstatus_to_exitcode(status),
                      "cpu_s": 0.0}
        reply = {"returncode": report["returncode"], "timed_out": ended == "timeout",
                 "wall_s": time.monotonic() - start, "cpu_s": report["cpu_s"]}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if not keeper_reaped:
            os.waitpid(keeper, 0)  # the keeper's exit (freeing its copy of this big process) is off the reply's path


def main():
    # The zygote's own directory comes on stdin, not argv (a step reads its inherited /proc/self/cmdline), and is
    # held only in a dict that a step's process empties (forget_host_state), never in a local.
    state = json.loads(sys.stdin.buffer.readline())
    # Imported from "/": a library that records its import-time directory (multiprocessing's ORIGINAL_DIR, rich's
    # _IMPORT_CWD, any other) would otherwise keep the host folder the pool started this process in, for every step.
    os.chdir("/")
    for module in sys.argv[1:]:
        try:
            __import__(module)
        except ImportError:
            pass
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    serve(state)


if __name__ == "__main__":
    main()
