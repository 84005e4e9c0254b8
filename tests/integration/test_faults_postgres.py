"""The database fault tests again on PostgreSQL: a private server (tests/integration/postgres.py) and a pytest run of
the concurrent-writers test and the SIGKILL-mid-batch test with DATABASE_URL naming it, so the web side (pytest-django's
test database), both workers and the beat all use PostgreSQL. Skipped, with the reason, where no server can start."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.integration.fault_tally import summed
from tests.integration.postgres import private_postgres, unavailable_reason
from tests.integration.processes import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.skipif(bool(unavailable_reason()), reason=unavailable_reason())]

SCENARIOS = ("tests/integration/test_faults_sqlite_writers.py",
             "tests/integration/test_faults_worker_killed.py::test_rollout_batch_survives_sigkill")


def test_the_writer_and_sigkill_scenarios_pass_on_postgresql(tmp_path, record_property):
    with private_postgres() as url:
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_XDIST")}
        env.update(DATABASE_URL=url, SANDMLE_DATA_DIR=str(tmp_path / "data"),
                   # pytest-django makes test_<name>; the worker processes must write that same database.
                   SANDMLE_TEST_WORKER_DATABASE_URL=url.rsplit("/", 1)[0] + "/test_sandmle")
        report = tmp_path / "postgres.xml"
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q", "-rs",
                               "-o", "junit_family=xunit1", f"--junitxml={report}", *SCENARIOS],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=500)
    if report.is_file():  # the nested scenarios' figures count in bench/faults like the others
        for name, value in summed(report)[0].items():
            record_property(name, value)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in summary and "skipped" not in summary, summary
