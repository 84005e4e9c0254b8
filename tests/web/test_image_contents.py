"""The image's file set starts the studio: what the Dockerfile's COPY lines put in the image (less .dockerignore)
runs `django.setup()`, `manage.py check` with production settings and the Celery app with its tasks, in a fresh
interpreter that sees only those files and the installed dependencies (no editable-install path hook).

No Docker daemon runs here, so the test rebuilds the build context the way Docker does: every file under the
context root that no .dockerignore rule excludes, copied by the Dockerfile's COPY instructions."""

from __future__ import annotations

import fnmatch
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def dockerignore_rules(root: Path) -> list[tuple[bool, str]]:
    """(is_exception, pattern) pairs in file order; the last rule that matches a path decides, as in Docker."""
    rules = []
    for line in (root / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip("/"))
        rules.append((exception, pattern))
    return rules


def _matches(pattern: str, relative: str) -> bool:
    """Docker's matcher: path.Match per component, `**` for any number of components; a pattern that names a
    directory excludes what is inside it."""
    regex = ""
    for part in re.split(r"(\*\*)", pattern):
        regex += ".*" if part == "**" else fnmatch.translate(part)[4:-3].replace(".*", "[^/]*")
    regex = regex.replace(".*/", "(.*/)?")
    parts = relative.split("/")
    return any(re.fullmatch(regex, "/".join(parts[:end])) for end in range(1, len(parts) + 1))


def excluded(relative: str, rules: list[tuple[bool, str]]) -> bool:
    verdict = False
    for exception, pattern in rules:
        if _matches(pattern, relative):
            verdict = not exception
    return verdict


def copy_instructions(root: Path) -> list[tuple[list[str], str]]:
    copies = []
    for line in (root / "Dockerfile").read_text().splitlines():
        words = line.split()
        if words and words[0].upper() == "COPY":
            arguments = [word for word in words[1:] if not word.startswith("--")]
            copies.append((arguments[:-1], arguments[-1]))
    return copies


def build_image_tree(root: Path, destination: Path) -> None:
    """Copies what `docker build` would put under the image's WORKDIR."""
    rules = dockerignore_rules(root)
    for sources, target in copy_instructions(root):
        for source in sources:
            source_path = (root / source).resolve()
            base = destination / target if target not in (".", "./") else destination
            if source_path.is_file():
                if not excluded(os.path.relpath(source_path, root), rules):
                    base.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source_path, base / source_path.name if target.endswith("/") or target in (".", "./")
                                 else base)
                continue
            for directory, subdirs, files in os.walk(source_path):
                subdirs[:] = [d for d in subdirs if not excluded(os.path.relpath(Path(directory, d), root), rules)]
                for name in files:
                    path = Path(directory, name)
                    relative_to_context = os.path.relpath(path, root)
                    if excluded(relative_to_context, rules) or path.is_symlink():
                        continue
                    out = base / os.path.relpath(path, source_path)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, out)


# Runs in the fresh interpreter (`python -S`): the site-packages directory without the editable install's
# `.pth` hook, then the image's WORKDIR first on the path, as `python manage.py` in /app has it.
BOOT = """
import os, site, sys
app, site_packages = sys.argv[1], sys.argv[2]
sys.path.insert(0, app)
sys.path.append(site_packages)
for name in sorted(os.listdir(site_packages)):
    if name.endswith(".pth") and not name.startswith("__editable__"):
        site.addpackage(site_packages, name, set())
import importlib.util
for package in ("sandmle", "sandmle_web", "studio", "tasks_app", "training_app", "workers", "accounts"):
    spec = importlib.util.find_spec(package)
    assert spec and spec.origin.startswith(app), f"{package} not from the image's files: {spec and spec.origin}"
import django
django.setup()
from django.core.management import call_command
call_command("check", "--deploy", "--fail-level", "ERROR")
from sandmle_web.celery import app as celery_app
celery_app.loader.import_default_modules()
names = sorted(name for name in celery_app.tasks if name.startswith("workers."))
assert names, "no worker task registered"
print("TASKS", " ".join(names))
"""


def test_the_image_file_set_starts_the_web_side_and_the_workers(tmp_path):
    image = tmp_path / "app"
    build_image_tree(ROOT, image)
    assert (image / "manage.py").is_file()
    assert not (image / ".git").exists() and not (image / ".venv").exists()
    env = {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "sandmle_web.settings", "DEBUG": "0",
           "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "studio.example.org",
           "SANDMLE_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-S", "-c", BOOT, str(image), sysconfig.get_paths()["purelib"]],
                            cwd=image, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    tasks = result.stdout.split("TASKS", 1)[1].split()
    assert "workers.rollouts.run_rollout_batch" in tasks


def test_dockerignore_keeps_local_state_out_of_the_image(tmp_path):
    rules = dockerignore_rules(ROOT)
    for local in (".venv/bin/python", ".git/HEAD", "data/db.sqlite3", "test-artifacts/screenshots/a.png",
                  "sandmle/__pycache__/cli.cpython-311.pyc", "staticfiles/app.css"):
        assert excluded(local, rules), local
    for kept in ("studio/views.py", "sandmle/cli.py", "templates/base.html", "static/css/studio.css", "manage.py"):
        assert not excluded(kept, rules), kept
