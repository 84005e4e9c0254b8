"""A worker killed with SIGKILL leaves staged public files, a staged scratch dir, episode and zygote dirs behind;
the next staging sweeps them, and never touches a live owner's entries or a directory that is not the root."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sandmle.sandbox.staging import (OWNER_SUFFIX, STAGING_DIR_NAME, make_staged_dir, remove_staged, stage_public,
                                     staging_root, sweep_dead)

HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from sandmle.sandbox.staging import owned_temp_dir, stage_public, staged_workdir
    public, workdir = Path(sys.argv[1]), Path(sys.argv[2])
    staged = stage_public(public)
    episode = owned_temp_dir("sandmle-episode-")
    (episode / "deep").mkdir()
    (episode / "deep" / "model.pkl").write_bytes(b"x" * 1000)
    with staged_workdir(workdir) as moved:
        print(staged, moved, episode, flush=True)
        time.sleep(600)
""")


def _public(tmp_path: Path) -> Path:
    public = tmp_path / "public"
    public.mkdir()
    (public / "train.csv").write_text("a,b\n1,2\n")
    return public


def _hold(tmp_path: Path, public: Path) -> tuple[subprocess.Popen, Path, Path, Path]:
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    (workdir / "notes.txt").write_text("agent scratch")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(public), str(workdir)], stdout=subprocess.PIPE,
                              text=True)
    staged, moved, episode = (Path(part) for part in holder.stdout.readline().split())
    return holder, staged, moved, episode


def test_a_killed_owners_entries_are_swept_by_the_next_staging(tmp_path):
    public = _public(tmp_path)
    holder, staged, moved, episode = _hold(tmp_path, public)
    try:
        assert {staged.parent.name, moved.parent.name, episode.parent.name} == {STAGING_DIR_NAME}
        assert (staged / "train.csv").read_text() == "a,b\n1,2\n"
        assert (moved / "notes.txt").exists() and not (tmp_path / "workdir").exists()
        # While the owner lives, another process's staging leaves its entries alone.
        mine = stage_public(public)
        assert staged.exists() and moved.exists() and episode.exists()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    try:
        assert staged.exists() and moved.exists() and episode.exists()  # the kill ran no cleanup
        again = stage_public(public)
        for left in (staged, moved, episode):
            assert not left.exists() and not Path(str(left) + OWNER_SUFFIX).exists(), left
        assert (mine / "train.csv").exists() and (again / "train.csv").exists()  # this live process's are kept
    finally:
        remove_staged(mine)
        remove_staged(again)
    assert not Path(str(mine) + OWNER_SUFFIX).exists() and not mine.exists()


def test_unreadable_records_and_foreign_directories_are_left_alone(tmp_path):
    root = staging_root(tmp_path)
    assert root is not None
    stranger = Path(make_staged_dir(root))
    Path(str(stranger) + OWNER_SUFFIX).write_text("not a record\n")
    reused = Path(make_staged_dir(root))
    Path(str(reused) + OWNER_SUFFIX).write_text(f"{os.getpid()} 0\n")  # this pid, another start time: a reuse
    try:
        sweep_dead(root)
        assert stranger.exists()  # a record it cannot read might be anyone's
        assert not reused.exists()  # a live pid with another start time is a dead owner whose pid came back
    finally:
        remove_staged(stranger)
    # A directory that is not the staging root (the temporary directory of a fallback) is never swept.
    foreign = tmp_path / "foreign"
    (foreign / "victim").mkdir(parents=True)
    (foreign / ("victim" + OWNER_SUFFIX)).write_text("1 0\n")
    assert sweep_dead(foreign) == 0 and (foreign / "victim").exists()
