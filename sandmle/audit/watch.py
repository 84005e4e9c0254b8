"""Host-side witnesses of an audit: a network listener the episodes try to reach, a canary folder they try to
write, and a scan for processes an episode left behind (marked by its nonce)."""

from __future__ import annotations

import os
import signal
import socket
import threading
from pathlib import Path

CANARY_TEXT = "HOST-CANARY: an episode that can read or write this file has left its sandbox\n"


class Listener:
    """TCP and UDP sockets on every address of the host; records whatever an episode manages to send."""

    def __init__(self) -> None:
        self.received: list[str] = []
        self._lock = threading.Lock()
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("0.0.0.0", 0))
        self.tcp.listen(16)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("0.0.0.0", self.port))
        self._closed = False
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    @property
    def addresses(self) -> tuple[tuple[str, int], ...]:
        hosts = {"127.0.0.1"}
        try:
            hosts.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
        except OSError:
            pass
        return tuple((host, self.port) for host in sorted(hosts))

    def _record(self, data: bytes) -> None:
        with self._lock:
            self.received.append(data[:200].decode(errors="replace").strip())

    def _accept(self) -> None:
        while not self._closed:
            try:
                connection, _ = self.tcp.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    self._record(connection.recv(200) or b"<connected>")
                except OSError:
                    self._record(b"<connected>")

    def _receive(self) -> None:
        while not self._closed:
            try:
                data, _ = self.udp.recvfrom(200)
            except OSError:
                return
            self._record(data)

    def hits(self, nonce: str) -> list[str]:
        with self._lock:
            return [text for text in self.received if nonce in text or text == "<connected>"]

    def close(self) -> None:
        self._closed = True
        for sock in (self.tcp, self.udp):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


def make_canary(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "canary.txt").write_text(CANARY_TEXT)
    return folder


def leftover_processes(nonce: str, *, kill: bool = True) -> list[int]:
    """Pids whose command line carries the nonce (processes an episode started and left running); killed if asked."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if nonce.encode() in cmdline:
            found.append(int(entry))
    if kill:
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)  # the audit's own episode started it
            except OSError:
                pass
    return found
