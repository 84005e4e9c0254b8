"""Playwright drives Debian's chromium (`playwright install` cannot download here)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,HttpsFirstModeIncognito"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        raise RuntimeError("Debian's chromium is not installed (apt-get install chromium)")
    return {**browser_type_launch_args, "executable_path": executable, "headless": True, "args": CHROMIUM_ARGS}


@pytest.fixture
def login(live_server, page, users):
    def as_role(role: str):
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", role)
        page.fill("input[name=password]", f"pw-{role}")
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        return page

    return as_role


@pytest.fixture(scope="session", autouse=True)
def live_server_on_plain_http(django_db_blocker):
    """The live server builds its middleware once, at start: switch HTTPS redirects off before it starts."""
    from django.conf import settings

    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    settings.SECURE_HSTS_SECONDS = 0


# --- Shared by the walks (test_walk_*.py): screenshots, a second login, a real Celery worker. ---
# The hidden values the viewer's walk looks for live in tests/hidden_values.py, shared with the role matrix.
from tests.hidden_values import hidden_values  # noqa: E402,F401

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """Where the walks' full-page screenshots go: $SANDMLE_TEST_ARTIFACTS/screenshots, else test-artifacts/ here."""
    root = os.environ.get("SANDMLE_TEST_ARTIFACTS")
    folder = Path(root) / "screenshots" if root else REPO_ROOT / "test-artifacts" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def shot(screenshot_dir, request):
    """`shot(page, "name")` saves a full-page PNG named after the walk's module, so every page visited is kept."""
    walk = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_walk_")

    def save(page, name: str) -> Path:
        page.wait_for_load_state("load")
        path = screenshot_dir / f"{walk}--{name}.png"
        page.screenshot(path=str(path), full_page=True)
        # Chromium's full-page capture stretches the viewport and back, after which its input hit testing can miss (a
        # click on a button at a scrolled page's foot lands on the form around it); a real resize puts it right.
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"], "height": size["height"] + 1})
        page.set_viewport_size(size)
        return path

    return save


@pytest.fixture
def login_as(live_server, browser, users):
    """A fresh browser context per person (two reviewers act side by side); `login_as("reviewer")` gives its page."""
    contexts = []

    def sign_in(username: str, password: str | None = None):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password or f"pw-{username}")
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        return page

    yield sign_in
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def studio_worker(django_db_setup, django_db_blocker):
    """One real `celery worker` for the whole session, on the live server's test database and filesystem broker.

    The database is flushed between transactional tests but its file stays, so one worker serves every walk."""
    from django.conf import settings
    from django.db import connection

    from tests.integration.processes import celery_worker

    with django_db_blocker.unblock():
        database_name = connection.settings_dict["NAME"]
    with celery_worker(database_name=str(database_name), broker_url="filesystem://",
                       data_dir=str(settings.DATA_DIR)) as process:
        yield process


def wait_for_job_state(page, selector: str, timeout_s: float) -> str:
    """Wait until the job page (which polls its progress and reloads when done) shows a finished state."""
    page.wait_for_function(
        """selector => { const node = document.querySelector(selector);
                          return node && ["succeeded", "failed", "cancelled"].includes(node.textContent.trim()); }""",
        arg=selector, timeout=timeout_s * 1000, polling=500)
    page.wait_for_load_state("load")
    return page.locator(selector).inner_text().strip()
