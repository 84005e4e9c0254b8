"""A private PostgreSQL server from Debian's package for the database fault tests: initdb into a temporary folder,
`postgres` on a free loopback port (fsync off: the tests check concurrency, not durability), stopped afterwards.

initdb refuses to run as root, so as root the server runs as Debian's `postgres` system user where it exists."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from tests.integration.processes import free_port

USER = "sandmle"


def postgres_bindir() -> Path | None:
    """The newest installed server's bin folder (/usr/lib/postgresql/<version>/bin), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def unavailable_reason() -> str:
    """Why no private server can start here ("" when one can)."""
    if postgres_bindir() is None:
        return "PostgreSQL is not installed (Debian package postgresql; .ci/run installs it)"
    if os.geteuid() == 0 and (shutil.which("runuser") is None or _uid("postgres") is None):
        return "running as root and there is no `postgres` user to run the server as"
    return ""


def _uid(name: str) -> int | None:
    import pwd

    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def private_postgres():
    """Yield the `postgres://` URL of a fresh server in a temporary folder; its superuser is `sandmle`."""
    bindir = postgres_bindir()
    folder = Path(tempfile.mkdtemp(prefix="sandmle-pg-"))
    data, sockets = folder / "pgdata", folder / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:  # the server user must reach and own its folders
        os.chmod(folder, 0o755)
        data.mkdir()
        for path in (sockets, data):
            shutil.chown(path, user="postgres")
    subprocess.run(_as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust",
                                    "-E", "UTF8", "--no-sync"]), check=True, capture_output=True)
    port = free_port()
    log = open(folder / "postgres.log", "w")
    server = subprocess.Popen(
        _as_server_user([str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(sockets),
                         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=100"]),
        stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while subprocess.run([str(bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
                             capture_output=True).returncode != 0:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"postgres did not start: {(folder / 'postgres.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield f"postgres://{USER}@127.0.0.1:{port}/sandmle"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
