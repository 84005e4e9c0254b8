"""A task's files stay readable in the studio while an episode runs on it, and a bundle's link out is never served.

The sandbox stages a bundle's public files as hard links (sandbox/staging.py), so during every rollout and GRPO step
those files have a second link; the studio's reader once refused them as it refuses an agent's hard links, and a
task's downloads and previews vanished whenever it was being trained on (CI saw it as 404s in the role matrix)."""

from __future__ import annotations

import shutil
from pathlib import Path

from sandmle.sandbox.staging import remove_staged, stage_public


def test_public_files_are_served_while_the_sandbox_has_them_staged(stored_tasks, api_for, client_for):
    task = stored_tasks[0]
    public = Path(task.bundle_dir) / "public"
    staged = stage_public(public)
    try:
        assert (public / "train.csv").stat().st_nlink > 1  # the staging really linked them, as an episode does
        response = api_for("viewer").get(f"/api/tasks/{task.task_id}/files/public/train.csv")
        assert response.status_code == 200
        assert response.content == (public / "train.csv").read_bytes()
        page = client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
        first_row = (public / "train.csv").read_text().splitlines()[1]
        assert "<tr><td>" + "</td><td>".join(first_row.split(",")) + "</td></tr>" in page  # the train.csv preview
    finally:
        remove_staged(staged)


def test_a_symbolic_link_in_a_bundle_is_neither_listed_nor_previewed(stored_tasks, api_for, client_for, tmp_path):
    """A bundle path is a database row: a bundle whose public file links to another task's answers leaks nothing."""
    victim, task = stored_tasks
    copy = tmp_path / "bundle"
    shutil.copytree(task.bundle_dir, copy)
    (copy / "public" / "train.csv").unlink()
    (copy / "public" / "train.csv").symlink_to(Path(victim.bundle_dir) / "private" / "answers.csv")
    task.bundle_dir = str(copy)
    task.save(update_fields=["bundle_dir"])
    answers = (Path(victim.bundle_dir) / "private" / "answers.csv").read_text().splitlines()[1]
    api = api_for("viewer")
    assert api.get(f"/api/tasks/{task.task_id}/files/public/train.csv").status_code == 404
    listing = api.get(f"/api/tasks/{task.task_id}/files/").content.decode()
    assert "public/test.csv" in listing and "public/train.csv" not in listing
    assert answers not in client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
