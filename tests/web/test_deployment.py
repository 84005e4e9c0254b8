"""Production settings pass `check --deploy`; docker-compose names only commands and variables the code has."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_has_no_errors(tmp_path):
    env = dict(os.environ, SECRET_KEY="x" * 60 + "-production-key-for-the-check", ALLOWED_HOSTS="studio.example.org",
               DEBUG="0", SANDMLE_DATA_DIR=str(tmp_path))
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set for the browser tests only
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _settings_variables() -> set[str]:
    text = (ROOT / "sandmle_web" / "settings.py").read_text()
    return set(re.findall(r'env(?:str|bool|int|list)\("([A-Z_]+)"', text)) | {"DJANGO_SETTINGS_MODULE"}


def test_compose_services_match_the_code():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"web", "worker", "gpu-worker", "redis", "postgres"} <= set(services)
    known = _settings_variables() | {"NVIDIA_VISIBLE_DEVICES"}
    queues = {"default", "sandbox", "gpu"}
    for name in ("web", "worker", "gpu-worker", "beat"):
        service = services[name]
        unknown = set(service["environment"]) - known
        assert not unknown, f"{name} sets variables the code never reads: {unknown}"
        command = service["command"]
        if "celery" in command:
            assert "-A sandmle_web" in command
            match = re.search(r"-Q (\S+)", command)
            if match:
                assert set(match.group(1).split(",")) <= queues
    assert "gunicorn sandmle_web.wsgi:application" in services["web"]["command"]
    assert (ROOT / "sandmle_web" / "wsgi.py").exists()
    assert services["gpu-worker"]["runtime"] == "nvidia"
    assert "-Q gpu" in services["gpu-worker"]["command"]
    assert set(re.search(r"-Q (\S+)", services["worker"]["command"]).group(1).split(",")) == {"default", "sandbox"}
