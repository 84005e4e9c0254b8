"""Production refuses the published development key: the app will not start and `check --deploy` fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEV_KEY = "insecure-development-key-set-SECRET_KEY-in-production"


def _manage(tmp_path, *args, **env_overrides):
    env = dict(os.environ, ALLOWED_HOSTS="studio.example.org", DEBUG="0", SANDMLE_DATA_DIR=str(tmp_path))
    env.pop("SECRET_KEY", None)  # the suite exports its own per-run key
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(env_overrides)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("key", [None, DEV_KEY, ""], ids=["unset", "development-key", "empty"])
def test_check_deploy_fails_without_a_real_key(tmp_path, key):
    overrides = {} if key is None else {"SECRET_KEY": key}
    result = _manage(tmp_path, "check", "--deploy", **overrides)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == ["SECRET_KEY is unset or the published development key: set SECRET_KEY (DEBUG is off)"]


def test_development_still_starts_on_the_development_key(tmp_path):
    result = _manage(tmp_path, "check", DEBUG="1")
    assert result.returncode == 0, result.stderr
