"""The host's access to an episode's files: regular files only, never through a link, any depth, never raising."""

from __future__ import annotations

import os

import pytest

from sandmle.sandbox.host_files import EpisodeDir, RefusedFile, remove_tree


@pytest.fixture
def episode(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE-SECRET\n")
    return EpisodeDir(workdir), workdir, outside


def refusal(files, name, **options):
    with pytest.raises(RefusedFile) as caught:
        files.read_bytes(name, max_bytes=options.get("max_bytes", 1 << 20))
    return str(caught.value)


def test_reads_regular_files_and_refuses_every_other_kind(episode, tmp_path):
    files, workdir, outside = episode
    (workdir / "ok.csv").write_text("id,y\n1,2\n")
    assert files.read_bytes("ok.csv", max_bytes=100) == b"id,y\n1,2\n"
    os.symlink(outside, workdir / "link.csv")
    os.symlink("/dev/zero", workdir / "zero.csv")
    os.mkfifo(workdir / "fifo.csv")
    (workdir / "dir.csv").mkdir()
    os.link(outside, workdir / "hard.csv")
    messages = {name: refusal(files, name) for name in ("link.csv", "zero.csv", "fifo.csv", "dir.csv", "hard.csv")}
    assert messages["link.csv"] == "link.csv is a symbolic link; only regular files are graded or copied"
    assert "a FIFO" in messages["fifo.csv"] and "a directory" in messages["dir.csv"]
    assert "hard links" in messages["hard.csv"]
    # No refusal says where a link points.
    assert not any(str(tmp_path) in m or "zero" in m.replace("zero.csv", "") for m in messages.values())
    assert "more than" in refusal(files, "ok.csv", max_bytes=4)


def test_no_path_component_is_followed(episode):
    files, workdir, outside = episode
    os.symlink(outside.parent, workdir / "up")
    assert "not a plain directory" in refusal(files, "up/outside.txt")
    for bad in ("../outside.txt", "/etc/passwd"):
        with pytest.raises(RefusedFile):
            files.read_bytes(bad, max_bytes=100)


def test_writes_replace_a_planted_link_and_never_write_through_it(episode, tmp_path):
    files, workdir, outside = episode
    (workdir / "submission.csv").write_text("mine\n")
    (workdir / ".nodes").mkdir()
    os.symlink(outside, workdir / ".nodes" / "node0.csv")
    os.symlink(tmp_path / "not-yet", workdir / ".nodes" / "node1.csv")
    files.copy("submission.csv", ".nodes/node0.csv", max_bytes=100)
    files.copy("submission.csv", ".nodes/node1.csv", max_bytes=100)
    assert outside.read_text() == "OUTSIDE-SECRET\n" and not (tmp_path / "not-yet").exists()
    assert (workdir / ".nodes" / "node0.csv").read_text() == "mine\n"
    assert not (workdir / ".nodes" / "node0.csv").is_symlink()
    # A planted directory link is refused, not written through.
    remove_tree(workdir / ".nodes")
    os.symlink(tmp_path, workdir / ".nodes")
    with pytest.raises(RefusedFile):
        files.copy("submission.csv", ".nodes/outside.txt", max_bytes=100)
    assert outside.read_text() == "OUTSIDE-SECRET\n"


def test_sweep_removes_links_that_can_leave_and_keeps_the_rest(episode):
    files, workdir, outside = episode
    (workdir / "data").mkdir()
    (workdir / "data" / "x.csv").write_text("x")
    os.symlink(outside, workdir / "absolute")
    os.symlink("../../outside.txt", workdir / "data" / "up")
    os.symlink("data/x.csv", workdir / "down")
    assert sorted(files.sweep_links()) == ["absolute", "data/up"]
    assert os.path.islink(workdir / "down") and outside.exists()


def test_deep_trees_walk_and_remove_without_recursion(episode):
    files, workdir, outside = episode
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for _ in range(1500):
            os.mkdir("d" * 100)  # 1,500 levels of 100-character names: far past PATH_MAX as one path
            os.chdir("d" * 100)
        open("leaf.txt", "w").write("leaf")
        os.symlink(str(outside), "escape")
    finally:
        os.chdir(cwd)
    entries = list(files.walk())
    assert len(entries) == 1502 and entries[-1].relative.count("/") == 1500
    assert files.sweep_links() and outside.exists()
    remove_tree(workdir)
    assert not workdir.exists() and outside.read_text() == "OUTSIDE-SECRET\n"
    remove_tree(workdir)  # already gone: still no error
