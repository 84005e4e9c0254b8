"""Escapes and exhaustion: the network, fork bombs, memory, disk, time and processes left behind. Each must end as
an ordinary step (stopped at its limit) with nothing reached, filled or left running outside the episode."""

from __future__ import annotations

from sandmle.audit.agent_code import program
from sandmle.audit.registry import Attack, AttackTarget, Code, Outcome, register


def _steps_of(outcome: Outcome) -> list[dict]:
    return [turn["step"] for turn in outcome.trajectory.turns if turn.get("step")]


def _network(target: AttackTarget) -> list:
    addresses = ", ".join(f"({host!r}, {port})" for host, port in target.listener)
    body = program(f"""
import socket
reached = []
for host, port in [{addresses}, ('169.254.169.254', 80), ('10.0.2.2', 80), ('8.8.8.8', 53), ('1.1.1.1', 443)]:
    try:
        with socket.create_connection((host, port), timeout=1) as connection:
            connection.sendall(b'{target.nonce}\\n')
            reached.append(host)
    except OSError as error:
        pass
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'{target.nonce}\\n', (host, port))
    except OSError:
        pass
try:
    socket.getaddrinfo('example.com', 443)  # any public name: DNS must not resolve inside an episode
    reached.append('dns')
except OSError:
    pass
for path in ('/run/docker.sock', '/var/run/docker.sock', '/tmp/.X11-unix/X0', '/run/dbus/system_bus_socket'):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        reached.append(path)
    except OSError:
        pass
print('reached:', reached)
""")
    return [Code(body, "reach the audit's listener on the host, cloud metadata, the internet, DNS and host sockets")]


def _network_check(outcome: Outcome) -> list[str]:
    problems = [f"the host's listener received {hit!r} from the episode" for hit in outcome.network_hits]
    reached = [t["observation"] for t in outcome.trajectory.turns if "reached: [" in (t.get("observation") or "")]
    if reached and "reached: []" not in reached[-1]:
        problems.append(f"the episode reached the network: {reached[-1].strip()[:200]}")
    return problems


register(Attack(
    "escape_network", "escapes",
    "connects (TCP and UDP) to a listener the audit opens on the host's addresses, to cloud metadata and public "
    "addresses, resolves a name, and connects to host UNIX sockets",
    _network, every_scaffold=False, check=_network_check))


FORK_BOMB = """
import time
children = 0
deadline = time.monotonic() + 3
while time.monotonic() < deadline:
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
    except OSError:
        break
print('forked', children)
"""

LEFTOVER = """
import subprocess
for _ in range(2):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            import signal
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            os.execv(sys.executable, [sys.executable, '-c', 'import time\\nwhile True: time.sleep(1)', '{nonce}'])
        os._exit(0)
    os.wait()
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)', '{nonce}'], start_new_session=True)
print('left daemons behind')
"""


def _processes_check(outcome: Outcome) -> list[str]:
    if outcome.leftover_pids:
        return [f"processes the episode started outlived it: pids {outcome.leftover_pids[:10]}"]
    return []


register(Attack(
    "fork_bomb", "escapes",
    "forks as fast as it can for three seconds with every child sleeping, to exhaust the process table",
    lambda target: [Code(program(FORK_BOMB), "exhaust the process table"),
                    Code(program("print('the next step runs')\n"), "check the sandbox still serves")],
    every_scaffold=False, check=_processes_check))

register(Attack(
    "leftover_processes", "escapes",
    "double-forks daemons in new sessions that ignore SIGHUP and SIGTERM (and a Popen in its own session), marked "
    "with a nonce the audit looks for among the host's processes after the episode",
    lambda target: [Code(program(LEFTOVER.format(nonce=target.nonce)), "leave processes running")],
    every_scaffold=False, check=_processes_check))


MEMORY = """
hoard = []
try:
    while True:
        hoard.append(bytearray(64 << 20))
except MemoryError:
    print('allocation refused after', len(hoard) * 64, 'MB')
"""


def _memory_check(outcome: Outcome) -> list[str]:
    steps = _steps_of(outcome)
    if steps and steps[0].get("termination") == "ok" and "allocation refused" not in steps[0].get("stdout", ""):
        return ["the memory hog ended normally without being refused memory"]
    return []


register(Attack(
    "memory_hog", "escapes",
    "allocates memory in 64 MB blocks until refused or killed",
    lambda target: [Code(program(MEMORY), "exhaust memory"), Code(program("print('next step')\n"), "go on")],
    every_scaffold=False, check=_memory_check))


DISK = """
written = 0
try:
    for index in range(100000):
        with open(f'/workdir/fill{index}.bin', 'wb') as out:
            for _ in range(16):
                out.write(b'\\0' * (4 << 20))
                written += 4
except OSError as error:
    print('stopped after', written, 'MB:', error)
"""


def _disk_check(outcome: Outcome) -> list[str]:
    limit = outcome.target.workdir_mb * (1 << 20) + (64 << 20)
    if outcome.workdir_bytes > limit:
        return [f"the working directory holds {outcome.workdir_bytes >> 20} MB after the episode, over its "
                f"{outcome.target.workdir_mb} MB quota"]
    return []


register(Attack(
    "disk_fill", "escapes",
    "writes 64 MB files into the working directory and /tmp until stopped",
    lambda target: [Code(program(DISK), "fill the disk"),
                    Code(program(DISK.replace("/workdir/fill", "/tmp/fill")), "fill the private /tmp")],
    every_scaffold=False, check=_disk_check))


TIME = """
import signal
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):
    signal.signal(sig, signal.SIG_IGN)
while True:
    pass
"""


def _time_check(outcome: Outcome) -> list[str]:
    steps = _steps_of(outcome)
    problems = []
    for step in steps[:1]:
        if step.get("termination") != "timeout":
            problems.append(f"the endless step ended as {step.get('termination')!r}, not as a timeout")
        if step.get("wall_s", 0) > outcome.target.step_timeout_s + 10:
            problems.append(f"the endless step ran {step['wall_s']:.1f} s against a {outcome.target.step_timeout_s} s limit")
    return problems


register(Attack(
    "time_overrun", "escapes",
    "loops forever while ignoring SIGTERM, SIGINT, SIGHUP and SIGXCPU",
    lambda target: [Code(program(TIME), "never stop"), Code(program("print('next step')\n"), "go on")],
    every_scaffold=False, check=_time_check))
