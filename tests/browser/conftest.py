"""Playwright drives Debian's chromium (`playwright install` cannot download here)."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


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
