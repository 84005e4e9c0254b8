"""Where bubblewrap is missing or cannot create namespaces, the sandbox refuses agent code unless the loudly named
unsafe setting allows a plain subprocess."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sandmle.sandbox import Limits, Sandbox, SandboxUnavailable
from sandmle.sandbox.sandbox import UNSAFE_ENV_VAR


@pytest.fixture
def public(tmp_path) -> Path:
    public_dir = tmp_path / "public"
    public_dir.mkdir()
    (public_dir / "train.csv").write_text("id,y\n1,0\n")
    return public_dir


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch) -> None:
    """A PATH on which no bwrap can be found, as on a machine without the bubblewrap package."""
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv(UNSAFE_ENV_VAR, raising=False)


@pytest.fixture
def broken_bwrap(tmp_path, monkeypatch) -> None:
    """A bwrap that fails the way it does where user namespaces are forbidden (as in many containers)."""
    bin_dir = tmp_path / "bin-with-broken-bwrap"
    bin_dir.mkdir()
    bwrap = bin_dir / "bwrap"
    bwrap.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    bwrap.chmod(bwrap.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv(UNSAFE_ENV_VAR, raising=False)


def test_refuses_without_bwrap(public, tmp_path, no_bwrap):
    with pytest.raises(SandboxUnavailable, match=f"refusing to run untrusted code.*{UNSAFE_ENV_VAR}=1.*NOT isolated"):
        Sandbox(public_dir=public, workdir=tmp_path / "work")


def test_refuses_when_bwrap_cannot_create_namespaces(public, tmp_path, broken_bwrap):
    with pytest.raises(SandboxUnavailable, match="cannot create namespaces"):
        Sandbox(public_dir=public, workdir=tmp_path / "work")


@pytest.mark.parametrize("setting", ["", "0", "true", "yes"])
def test_only_the_exact_unsafe_setting_allows_it(public, tmp_path, no_bwrap, monkeypatch, setting):
    monkeypatch.setenv(UNSAFE_ENV_VAR, setting)
    with pytest.raises(SandboxUnavailable):
        Sandbox(public_dir=public, workdir=tmp_path / "work")


def test_unsafe_setting_runs_a_plain_subprocess(public, tmp_path, no_bwrap, monkeypatch):
    monkeypatch.setenv(UNSAFE_ENV_VAR, "1")
    monkeypatch.setenv("SANDMLE_TEST_SECRET", "not-for-steps")
    sandbox = Sandbox(public_dir=public, workdir=tmp_path / "work", limits=Limits(timeout_s=30))
    assert sandbox.unsafe and sandbox.public_path == str(public.resolve())
    result = sandbox.run_python("import os, sys\nprint(os.getcwd())\nprint(os.environ.get('SANDMLE_TEST_SECRET'))\n"
                                f"open('out.txt', 'w').write(open({sandbox.public_path + '/train.csv'!r}).read())")
    assert result.termination == "ok", result
    # Not isolated (the host paths are what the step sees), but it still gets the scrubbed environment.
    assert result.stdout.split() == [str((tmp_path / "work").resolve()), "None"]
    assert result.files_changed == ["out.txt"]
    looping = Sandbox(public_dir=public, workdir=tmp_path / "work", limits=Limits(timeout_s=1.0))
    assert looping.run_python("while True:\n    pass").termination == "timeout"
