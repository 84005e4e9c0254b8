"""The README's first command, run as a new user would: `scripts/demo` itself (SANDMLE_DEMO_SERVE=0), from a fresh
data directory, with its own Celery worker on the filesystem broker.

Without bubblewrap on PATH it stops at scripts/setup with the one command to run; with it, the demo's jobs (in its
quick mode: the same pipeline on one task) succeed and every scaffold wins medals.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def path_without(tmp_path: Path, *left_out: str) -> str:
    """A PATH of links to every program on the current one except `left_out` (no bwrap: a fresh machine)."""
    farm = tmp_path / "bin"
    farm.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            program = Path(folder) / name
            if name not in left_out and not (farm / name).exists() and os.access(program, os.X_OK) \
                    and program.is_file():
                (farm / name).symlink_to(program)
    return str(farm)


def demo_env(tmp_path: Path, **extra: str) -> dict:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("DJANGO_", "SANDMLE_", "DATABASE_", "CELERY_", "PYTEST_"))}
    return env | {"SANDMLE_DATA_DIR": str(tmp_path / "data"), "SANDMLE_DEMO_SERVE": "0"} | extra


def test_demo_without_bubblewrap_stops_with_the_command_to_run(tmp_path):
    # Without apt-get too: as root the setup would otherwise install bubblewrap, which is its job on a real machine.
    env = demo_env(tmp_path, PATH=path_without(tmp_path, "bwrap", "apt-get"))
    done = subprocess.run([str(ROOT / "scripts" / "demo")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the sandbox for agent code needs bubblewrap" in done.stderr
    assert "apt-get install -y bubblewrap" in done.stderr
    assert not (tmp_path / "data").exists()  # stopped before the database, the worker or any job


@pytest.mark.timeout(900)  # about 2 minutes on 2 idle cores; a shared machine is slower
def test_quick_demo_runs_every_job_and_wins_medals_under_every_scaffold(tmp_path):
    env = demo_env(tmp_path, SANDMLE_DEMO_QUICK="1")
    done = subprocess.run([str(ROOT / "scripts" / "demo")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=850)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert re.search(r"^sandbox: a step ran in \d+ ms$", done.stdout, re.M), output[-4000:]
    batch = re.search(r"^rollout batch #\d+: episodes (\d+), valid_rate ([\d.]+), medal_rate ([\d.]+)", done.stdout, re.M)
    assert batch and int(batch[1]) >= 1 and float(batch[2]) > 0 and float(batch[3]) > 0, output[-4000:]
    campaign = re.search(r"^campaign #\d+: medal rate by scaffold (.*)$", done.stdout, re.M)
    assert campaign, output[-4000:]
    rates = dict(cell.rsplit(" ", 1) for cell in campaign[1].split(", "))
    assert set(rates) == {"react", "aide", "aira", "mle_agent"} and all(float(rate) > 0 for rate in rates.values()), \
        campaign[0]
    # The gate is on by default here (demo_env keeps no SANDMLE_ variable): the demo audits the set it trains on.
    assert re.search(r"^audit #\d+ of task set demo-grpo \(react, \d+ attacks\): passed · \d+ cases contained",
                     done.stdout, re.M), output[-4000:]
    assert re.search(r"^model: a 2-layer Qwen3 .* tiny so that GRPO visibly learns", done.stdout, re.M), output[-4000:]
    trained = re.search(r"^training run #\d+ \(GRPO, cpu-smoke preset, reply-menu tiny model\): 6 steps, mean reward "
                        r"([\d.]+) -> ([\d.]+)", done.stdout, re.M)
    assert trained and float(trained[2]) >= float(trained[1]) + 0.3, output[-4000:]
    assert "tokens_per_s" not in done.stdout  # the scripted baseline generates no tokens
    assert "episodes failed" not in done.stdout  # no job hid failing episodes
