"""A training run's resolved config names its tasks by id on the page and in the API: viewers never read the server
folders that hold the bundles' private/ answers."""

from __future__ import annotations

from tests.checkpoint_dirs import checkpoint_dir
from training_app.runs import services as training_services


def test_viewers_see_task_ids_not_bundle_folders(client_for, api_for, users, task_set, settings,
                                                 django_capture_on_commit_callbacks):
    checkpoint_dir(settings.DATA_DIR)  # models/any: launches check the checkpoint under the model roots
    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model="models/any", steps=1,
                                                    user=users["curator"])
    folders = [str(task.bundle_dir) for task in task_set.tasks.all()]
    ids = sorted(task.task_id for task in task_set.tasks.all())
    assert sorted(run.config["tasks"]) == sorted(folders)  # the worker still trains from the folders
    api = api_for("viewer").get(f"/api/training-runs/{run.id}/").json()
    assert sorted(api["config"]["tasks"]) == ids
    listed = api_for("viewer").get("/api/training-runs/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert sorted(rows[0]["config"]["tasks"]) == ids
    page = client_for("viewer").get(f"/training/{run.id}/").content.decode()
    assert all(task_id in page for task_id in ids)
    assert not any(folder in page or folder in str(api) or folder in str(listed) for folder in folders)
