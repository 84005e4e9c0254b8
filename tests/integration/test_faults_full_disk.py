"""A full data directory: a synthesis job runs in a subprocess whose bundle folder is a 200 KiB tmpfs (a mount in a
user namespace of its own, so no root is needed), a real ENOSPC from the kernel. The job fails with a message that
says so, and every bundle left under a task's name is complete: built in a staging folder, renamed when whole."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from django.conf import settings

from sandmle_web.jobs import JobState
from tests.integration.fault_tally import tally
from tests.integration.processes import ROOT, worker_env

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# Runs the job as a worker would, then reports what the (soon unmounted) folder holds and whether each bundle's
# files still match the hashes its task.json recorded.
JOB = """
import json, os, sys
from pathlib import Path
import django
django.setup()
from sandmle.tasks.bundle import bundle_hash, file_hashes
from tasks_app.synthesis.services import synthesis_run_execute
out = Path(sys.argv[2])
try:
    synthesis_run_execute(run_id=int(sys.argv[1]), worker="full-disk")
except OSError:
    pass
listing = {}
for entry in sorted(out.iterdir()):
    task = entry / "task.json"
    listing[entry.name] = task.is_file() and bundle_hash(file_hashes(entry)) == json.loads(task.read_text())["bundle_sha256"]
print("LISTING " + json.dumps(listing))
"""


def _user_namespace_mounts() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _user_namespace_mounts(), reason="unshare -Urm with a tmpfs mount is not allowed here")
def test_full_disk_fails_the_job_by_name_and_leaves_no_half_bundle(record_property):
    from tasks_app.models import Seed, SynthesisRun, SynthesizedTask
    from tasks_app.seeds import services as seed_services

    seed_services.seeds_load_bundled()
    run = SynthesisRun.objects.create(seed=Seed.objects.get(name="iris"), count=4, rng=5)
    out_dir = settings.DATA_DIR / "bundles" / f"run-{run.id}"
    # Row ids come again after a rolled-back test: an earlier test's run of the same id may have left its folder.
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    env = worker_env(database_name=str(settings.DATABASES["default"]["NAME"]), broker_url="filesystem://",
                     data_dir=str(settings.DATA_DIR))
    script = f'mount -t tmpfs -o size=200k tmpfs "$1" && exec "{sys.executable}" -c "$2" "$3" "$1"'
    done = subprocess.run(["unshare", "-Urm", "sh", "-c", script, "sh", str(out_dir), JOB, str(run.id)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    lines = [line for line in done.stdout.splitlines() if line.startswith("LISTING ")]
    assert lines, done.stdout[-2000:] + done.stderr[-2000:]
    listing = json.loads(lines[0][len("LISTING "):])
    run.refresh_from_db()
    stored = set(SynthesizedTask.objects.filter(run=run).values_list("task_id", flat=True))
    # The job is meant to fail here: nothing it stored may be lost or half-written; it completes no job.
    tally(record_property, faults=1, jobs_completed=0, expected=len(stored), keys=list(stored),
          corrupt=sum(not whole for whole in listing.values()) + sum(name.startswith(".") for name in listing)
          + len(stored ^ set(listing)))
    assert run.state == JobState.FAILED
    assert run.error.startswith("no space left in the data directory"), run.error
    assert "launch the job again" in run.error
    assert all(listing.values()) and not [name for name in listing if name.startswith(".")], listing
    assert stored == set(listing) and len(stored) < 4  # every stored task is a whole bundle; the disk stopped the rest
