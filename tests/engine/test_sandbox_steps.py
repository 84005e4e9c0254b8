"""What a step result holds and what carries over between steps, through the warm pool and the cold bwrap path."""

from __future__ import annotations

import threading
import time

import pytest

from sandmle.sandbox import Limits, Sandbox, SandboxPool
from sandmle.sandbox.limits import OUTPUT_LIMIT_BYTES

LIMITS = Limits(timeout_s=60.0, memory_mb=512, file_size_mb=8, workdir_mb=64, processes=32)


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=("numpy",)) as shared_pool:
        yield shared_pool


@pytest.fixture(params=["warm", "cold"])
def sandbox(request, tmp_path, pool) -> Sandbox:
    public = tmp_path / "public"
    public.mkdir()
    (public / "train.csv").write_text("id,x,y\n1,0.5,1\n")
    return Sandbox(public_dir=public, workdir=tmp_path / "work", limits=LIMITS,
                   pool=pool if request.param == "warm" else None)


def test_long_output_keeps_head_and_tail_with_a_marker(sandbox):
    result = sandbox.run_python("import sys\nprint('HEAD')\nsys.stdout.write('x' * 500_000)\nprint('TAIL')\n"
                                "sys.stderr.write('e' * 100 + 'ERR-END')")
    assert result.termination == "ok", result
    assert result.stdout.startswith("HEAD") and result.stdout.rstrip().endswith("TAIL")
    assert "[truncated" in result.stdout and len(result.stdout) < OUTPUT_LIMIT_BYTES + 200
    assert result.stderr.endswith("ERR-END")


def test_files_carry_over_but_nothing_else_does(sandbox):
    first = sandbox.run_python("import numpy\nnumpy.left_by_step_one = 1\nLEFT = 1\n"
                               "open('model.txt', 'w').write('fitted')\nopen('/tmp/scratch', 'w').write('x')\n"
                               "open('unchanged.txt', 'w').write('same')")
    assert first.termination == "ok" and first.files_changed == ["model.txt", "unchanged.txt"], first
    second = sandbox.run_python("import numpy, os\nprint(open('model.txt').read())\n"
                                "print(hasattr(numpy, 'left_by_step_one'), 'LEFT' in globals(), "
                                "os.path.exists('/tmp/scratch'))\nopen('model.txt', 'a').write('+more')")
    assert second.stdout.split() == ["fitted", "False", "False", "False"], second
    assert second.files_changed == ["model.txt"]


def test_public_is_read_only_and_errors_are_reported(sandbox):
    result = sandbox.run_shell("echo hi > /public/train.csv; echo rc=$? >&2; echo out; exit 3")
    assert result.termination == "error" and result.exit_code == 3
    assert result.stdout.strip() == "out" and "rc=0" not in result.stderr and "Read-only" in result.stderr
    assert (sandbox.public_dir / "train.csv").read_text().startswith("id,x,y")
    failing = sandbox.run_python("raise ValueError('bad model')")
    assert failing.termination == "error" and failing.exit_code == 1 and "ValueError: bad model" in failing.stderr
    # The traceback quotes the agent's line and shows none of the sandbox's own frames or paths.
    assert "    raise ValueError('bad model')" in failing.stderr and "zygote" not in failing.stderr
    assert failing.wall_s > 0 and failing.cpu_s >= 0


def test_pool_serialises_steps_beyond_its_size_and_recycles_interpreters(tmp_path):
    public = tmp_path / "public"
    public.mkdir()
    with SandboxPool(max_zygotes=1, steps_per_zygote=2, preload=()) as small_pool:
        sandboxes = [Sandbox(public_dir=public, workdir=tmp_path / f"episode-{index}", limits=LIMITS, pool=small_pool)
                     for index in range(3)]
        results = [None] * 3

        def run(index: int) -> None:
            results[index] = sandboxes[index].run_python("import time\ntime.sleep(0.3)\nprint('done')")

        start = time.monotonic()
        threads = [threading.Thread(target=run, args=(index,)) for index in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - start
    assert [result.stdout.strip() for result in results] == ["done"] * 3, results
    assert elapsed >= 0.9  # one interpreter: the three steps ran one after another, across a recycled zygote


@pytest.mark.parametrize("path", ["warm", "cold"])
def test_packages_under_the_hosts_tmp_stay_visible_beside_the_steps_tmp(path, tmp_path, monkeypatch):
    """A checkout (and its virtualenv) under the host's /tmp: the step's own /tmp must not hide its packages."""
    site = tmp_path / "env" / "site-packages"
    site.mkdir(parents=True)
    (site / "probe_package_under_tmp.py").write_text("VALUE = 'found'\n")
    monkeypatch.syspath_prepend(str(site))
    public = tmp_path / "public"
    public.mkdir()
    code = ("import probe_package_under_tmp, os\nopen('/tmp/scratch', 'w').write('x')\n"
            "print(probe_package_under_tmp.VALUE, os.listdir('/tmp'))")
    if path == "warm":
        with SandboxPool(max_zygotes=1, preload=()) as own_pool:
            result = Sandbox(public_dir=public, workdir=tmp_path / "work", limits=LIMITS, pool=own_pool).run_python(code)
    else:
        result = Sandbox(public_dir=public, workdir=tmp_path / "work", limits=LIMITS).run_python(code)
    assert result.termination == "ok", result
    assert result.stdout.startswith("found") and "scratch" in result.stdout
