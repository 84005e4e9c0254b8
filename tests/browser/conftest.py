"""Playwright drives Debian's chromium (`playwright install` cannot download here)."""

from __future__ import annotations

import shutil

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
