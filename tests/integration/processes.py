"""Real services for integration tests: a private redis-server and a `celery worker` process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_redis(port: int) -> subprocess.Popen:
    """Start redis-server on `port` (no persistence) and wait until it answers PING."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (Debian package redis-server)")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return process
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError("redis-server did not start")
        time.sleep(0.05)


class RedisServer:
    """A private redis-server that a test can kill and start again on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = start_redis(self.port)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def restart(self) -> None:
        self.process = start_redis(self.port)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@contextmanager
def redis_server():
    """Yield the URL of a fresh redis-server on a free loopback port, with no persistence."""
    server = RedisServer()
    try:
        yield server.url
    finally:
        server.stop()


def worker_env(*, database_name: str, broker_url: str, data_dir: str, extra_env: dict | None = None) -> dict:
    """The environment of a worker (or beat) process pointed at the test database, broker and data directory."""
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": os.environ.get("SANDMLE_TEST_WORKER_DATABASE_URL") or f"sqlite:///{database_name}",
        "CELERY_BROKER_URL": broker_url,
        "SANDMLE_DATA_DIR": data_dir,
        "DJANGO_SETTINGS_MODULE": "sandmle_web.settings",
        "OMP_NUM_THREADS": "1",
        **(extra_env or {}),
    })
    return env


def wait_for_worker(name: str, broker_url: str, process: subprocess.Popen, log_path: Path, timeout_s: float = 60) -> None:
    from celery import Celery

    probe = Celery(broker=broker_url)
    if broker_url.startswith("filesystem://"):
        from django.conf import settings

        probe.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    deadline = time.monotonic() + timeout_s
    while not probe.control.ping(destination=[name], timeout=0.5):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"celery worker did not start; log:\n{log_path.read_text()[-3000:]}")


class KillableWorker:
    """A `celery worker` in a session of its own, so SIGKILL reaches the main process and its pool children at once
    (as an OOM kill or a lost machine would), with nothing shut down cleanly."""

    def __init__(self, *, env: dict, data_dir: str, queues: str = "default,sandbox,gpu", concurrency: int = 1,
                 label: str = "worker") -> None:
        self.name = f"{label}-{os.getpid()}-{free_port()}@localhost"
        self.log_path = Path(data_dir) / "logs" / f"{self.name.split('@')[0]}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "sandmle_web", "worker", "-Q", queues, "--concurrency",
             str(concurrency), "--loglevel", "INFO", "-n", self.name, "--without-gossip", "--without-mingle",
             "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            wait_for_worker(self.name, env["CELERY_BROKER_URL"], self.process, self.log_path)
        except BaseException:
            self.kill()
            raise

    def group_pids(self) -> set[int]:
        """The pids of the worker's process group (its main process and pool children), read from /proc."""
        pids = set()
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == \
                        self.process.pid:
                    pids.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
        return pids

    def kill(self) -> None:
        """SIGKILL the worker's whole process group."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=20)
        self._log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def celery_beat(*, env: dict, data_dir: str):
    """`celery beat` sending the lost-job sweep on the schedule the environment sets (SANDMLE_JOB_SWEEP_S)."""
    log_path = Path(data_dir) / "logs" / f"beat-{os.getpid()}-{free_port()}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    schedule = Path(data_dir) / f"beat-schedule-{free_port()}"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "sandmle_web", "beat", "--loglevel", "INFO", "-s", str(schedule)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def celery_worker(*, database_name: str, broker_url: str, data_dir: str, queues: str = "default,sandbox,gpu",
                  extra_env: dict | None = None):
    """Start `celery worker` against the test database and broker; wait until it answers a ping; stop it after."""
    env = worker_env(database_name=database_name, broker_url=broker_url, data_dir=data_dir, extra_env=extra_env)
    worker = KillableWorker(env=env, data_dir=data_dir, queues=queues, concurrency=2, label="test")
    try:
        yield worker.process
    finally:
        worker.stop()


@contextmanager
def app_on_broker(url: str):
    """Point this process's Celery app (so the live server's and the test client's launches) at another broker for a
    while; the broker banner's and the worker check's cached answers are dropped before and after."""
    from sandmle_web import worker_queues
    from sandmle_web.celery import app
    from sandmle_web import broker

    saved = (app.conf.broker_url, app._pool, app.amqp._producer_pool)
    app.conf.broker_url = url
    app._pool = app.amqp._producer_pool = None
    broker._last.update(at=float("-inf"))
    worker_queues.forget()
    try:
        yield
    finally:
        app.conf.broker_url, app._pool, app.amqp._producer_pool = saved
        broker._last.update(at=float("-inf"))
        worker_queues.forget()
