"""Real services for integration tests: a private redis-server and a `celery worker` process."""

from __future__ import annotations

import os
import shutil
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


@contextmanager
def redis_server():
    """Yield the URL of a fresh redis-server on a free loopback port, with no persistence."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (Debian package redis-server)")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def celery_worker(*, database_name: str, broker_url: str, data_dir: str, queues: str = "default,sandbox,gpu",
                  extra_env: dict | None = None):
    """Start `celery worker` against the test database and broker; wait until it answers a ping."""
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": f"sqlite:///{database_name}",
        "CELERY_BROKER_URL": broker_url,
        "SANDMLE_DATA_DIR": data_dir,
        "DJANGO_SETTINGS_MODULE": "sandmle_web.settings",
        "OMP_NUM_THREADS": "1",
        **(extra_env or {}),
    })
    name = f"test-{os.getpid()}-{free_port()}@localhost"
    log_path = Path(data_dir) / "logs" / f"{name.split('@')[0]}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "sandmle_web", "worker", "-Q", queues, "--concurrency", "2",
         "--loglevel", "INFO", "-n", name, "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        from celery import Celery

        probe = Celery(broker=broker_url)
        if broker_url.startswith("filesystem://"):
            from django.conf import settings

            probe.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        deadline = time.monotonic() + 60
        while not probe.control.ping(destination=[name], timeout=0.5):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"celery worker did not start; log:\n{log_path.read_text()[-3000:]}")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
