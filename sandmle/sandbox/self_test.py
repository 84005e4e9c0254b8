"""One trivial step through the real sandbox, so a machine that cannot isolate agent code says so before any job runs.

Without it every episode of a rollout batch, campaign or training run fails the same way and the job looks like a
policy that never scores (the demo on a machine without bubblewrap did exactly that).
"""

from __future__ import annotations

import time
from pathlib import Path

from sandmle.sandbox.limits import Limits, SandboxUnavailable
from sandmle.sandbox.sandbox import Sandbox, bwrap_path, unsafe_mode
from sandmle.sandbox.staging import owned_temp_dir, remove_staged

INSTALL_HINT = "install bubblewrap (on Debian: apt-get install -y bubblewrap; scripts/setup does it as root)"
PROBE = "probe.txt"


def sandbox_self_test(*, timeout_s: float = 60.0) -> dict:
    """Run one Python step that reads a public file and writes to its workdir; SandboxUnavailable says why not."""
    if bwrap_path() is None and not unsafe_mode():  # the plain-subprocess mode is a developer's explicit choice
        raise SandboxUnavailable(f"bubblewrap (bwrap) is not on PATH: {INSTALL_HINT}")
    root = owned_temp_dir("sandmle-self-test-")
    try:
        public = root / "public"
        public.mkdir()
        (public / PROBE).write_text("ok\n")
        try:
            sandbox = Sandbox(public_dir=public, workdir=root / "work", limits=Limits(timeout_s=timeout_s))
        except SandboxUnavailable as error:
            raise SandboxUnavailable(f"{error} ({INSTALL_HINT})") from error
        started = time.monotonic()
        try:
            result = sandbox.run_python(
                f"text = open({sandbox.public_path + '/' + PROBE!r}).read()\n"
                "open('out.txt', 'w').write(text)\nprint(text.strip())\n")
        finally:
            sandbox.close()
        wall_s = time.monotonic() - started
        written = root / "work" / "out.txt"
        if result.exit_code != 0 or result.stdout.strip() != "ok" or not written.is_file():
            detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [result.termination]
            raise SandboxUnavailable(f"the sandbox could not run a step (exit {result.exit_code}, "
                                     f"{result.termination}): {detail[0][:300]}")
        return {"bwrap": bwrap_path(), "isolated": not sandbox.unsafe, "wall_s": wall_s}
    finally:
        remove_staged(root)
