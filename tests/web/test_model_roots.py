"""Model paths: a training run's `model` and an `hf:` policy must lie under the model roots (the data directory's
training/ and models/, SANDMLE_MODEL_ROOTS), refused in the same words whatever exists there; a curator may not load
another user's checkpoint; a link inside a root cannot lead out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkpoint_dirs import checkpoint_dir
from training_app.shared.model_roots import outside_message
from training_app.models import RolloutBatch, TrainingRun

LAUNCH = {"task_set": "web-set", "kind": "grpo", "steps": 1, "group_size": 2, "tasks_per_step": 1,
          "learning_rate": 1e-4, "max_turns": 1, "max_tokens": 8, "save_every": 1}


@pytest.fixture
def outside(tmp_path):
    """An existing folder outside every root, shaped like a model (a host's /root/.ssh would do as well)."""
    folder = tmp_path / "host-secrets"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 64, "num_hidden_layers": 2}')
    (folder / "id_rsa").write_text("PRIVATE KEY")
    return folder


def _paths(outside, settings, stored_tasks):
    bundle = Path(stored_tasks[0].bundle_dir)
    return [str(outside), str(outside / "missing"), str(bundle / "private"), "/etc", "../../etc", "models/../../..",
            str(Path(settings.DATA_DIR))]


def test_paths_outside_the_roots_get_one_answer_on_the_page_and_the_api(client_for, api_for, task_set, outside,
                                                                         settings, stored_tasks):
    for path in _paths(outside, settings, stored_tasks):
        page = client_for("curator").post("/training/", LAUNCH | {"model": path})
        assert page.status_code == 400
        assert page.context["form"].errors["model"] == [outside_message()], path
        api = api_for("curator").post("/api/training-runs/", LAUNCH | {"model": path}, format="json")
        assert api.status_code == 400 and api.json()["model"] == [outside_message()], path
        admin = api_for("admin").post("/api/training-runs/", LAUNCH | {"model": path}, format="json")
        assert admin.status_code == 400 and admin.json()["model"] == [outside_message()], path
    assert not TrainingRun.objects.exists()


def test_hf_policies_outside_the_roots_are_refused(api_for, task_set, outside):
    for policy in (f"hf:{outside}", "hf:/etc", "hf:../.."):
        response = api_for("curator").post("/api/rollout-batches/", {"task_set": "web-set", "scaffold": "react",
                                                                     "policy": policy, "samples": 1}, format="json")
        assert response.status_code == 400 and response.json()["policy"] == [outside_message()]
    assert not RolloutBatch.objects.exists()


def test_a_link_inside_a_root_cannot_lead_out(api_for, task_set, outside, settings):
    models = Path(settings.DATA_DIR) / "models"
    models.mkdir(parents=True, exist_ok=True)
    link = models / f"link-{outside.parent.name}"
    link.symlink_to(outside)
    try:
        response = api_for("curator").post("/api/training-runs/", LAUNCH | {"model": str(link)}, format="json")
        assert response.status_code == 400 and response.json()["model"] == [outside_message()]
    finally:
        link.unlink()


def test_a_curator_uses_their_own_checkpoints_and_the_offered_models_only(api_for, client_for, users, task_set,
                                                                        settings, tmp_path,
                                                                        django_capture_on_commit_callbacks):
    from training_app.models import TrainingCheckpoint

    checkpoint_dir(settings.DATA_DIR)  # models/any, a directory shaped as a checkpoint
    with django_capture_on_commit_callbacks(execute=False):
        mine = api_for("curator").post("/api/training-runs/", LAUNCH | {"model": "models/any"}, format="json")
        theirs = api_for("admin").post("/api/training-runs/", LAUNCH | {"model": "models/any"}, format="json")
    assert mine.status_code == theirs.status_code == 201
    runs = {run.created_by.username: run for run in TrainingRun.objects.all()}
    assert runs["curator"].config["model"] == str(Path(settings.DATA_DIR).resolve() / "models" / "any")
    for owner, run in runs.items():
        path = Path(run.output_dir) / "checkpoint-1"  # shaped as a checkpoint: the service reads its config.json
        path.mkdir(parents=True)
        (path / "config.json").write_text("{}")
        TrainingCheckpoint.objects.create(run=run, step=1, path=str(path))
    others = str(Path(runs["admin"].output_dir) / "checkpoint-1")
    own = str(Path(runs["curator"].output_dir) / "checkpoint-1")
    with django_capture_on_commit_callbacks(execute=False):
        refused = api_for("curator").post("/api/training-runs/", LAUNCH | {"model": others}, format="json")
        assert refused.status_code == 400 and refused.json()["model"] == ["not one of your training runs' checkpoints"]
        assert api_for("curator").post("/api/training-runs/", LAUNCH | {"model": own}, format="json").status_code == 201
        assert api_for("admin").post("/api/training-runs/", LAUNCH | {"model": own}, format="json").status_code == 201
        batch = api_for("curator").post("/api/rollout-batches/", {"task_set": "web-set", "scaffold": "react",
                                                                  "policy": f"hf:{others}", "samples": 1},
                                        format="json")
    assert batch.status_code == 400 and batch.json()["policy"] == ["not one of your training runs' checkpoints"]
    # The page offers the curator's own finished runs' checkpoints, never the admin's.
    TrainingRun.objects.update(state="succeeded")
    page = client_for("curator").get("/training/").content.decode()
    assert f'<option value="{own}">run #{runs["curator"].id}' in page and others not in page


def test_an_admin_listed_root_is_allowed(api_for, task_set, tmp_path, settings, django_capture_on_commit_callbacks):
    shared = tmp_path / "shared-models"
    (shared / "qwen").mkdir(parents=True)
    (shared / "qwen" / "config.json").write_text("{}")
    settings.SANDMLE_MODEL_ROOTS = [str(shared)]
    with django_capture_on_commit_callbacks(execute=False):
        response = api_for("curator").post("/api/training-runs/", LAUNCH | {"model": str(shared / "qwen")},
                                           format="json")
    assert response.status_code == 201, response.content


def test_the_refusal_names_the_allowed_folders_and_nothing_of_the_path_asked(client_for, task_set, outside, settings):
    settings.SANDMLE_MODEL_ROOTS = [str(outside.parent / "shared-models")]
    page = client_for("curator").post("/training/", LAUNCH | {"model": str(outside)})
    error = page.context["form"].errors["model"][0]
    assert error == ("not under an allowed model folder; the allowed ones are models/ in the data directory, your runs' "
                     f"checkpoints under training/, {outside.parent / 'shared-models'}")
    assert str(outside) not in error


@pytest.mark.torch
def test_the_picker_offers_the_tiny_model_and_finished_runs_and_cpu_smoke_starts_from_it(
        client_for, users, task_set, settings, tmp_path, django_capture_on_commit_callbacks):
    from training_app.models import TrainingCheckpoint
    from training_app.shared.model_roots import TINY_MODEL

    finished = TrainingRun.objects.create(name="mine", kind="grpo", task_set=task_set, config={}, state="succeeded",
                                          output_dir=str(Path(settings.DATA_DIR) / "training" / "mine"),
                                          created_by=users["curator"])
    path = checkpoint_dir(Path(settings.DATA_DIR) / "training" / "mine")
    TrainingCheckpoint.objects.create(run=finished, step=6, path=path)
    curator = client_for("curator")
    html = curator.get("/training/").content.decode()
    picker = html.split('<datalist id="model-choices">')[1].split("</datalist>")[0]
    assert f'<option value="{TINY_MODEL}">tiny reply-menu Qwen3' in picker
    assert f'<option value="{path}">run #{finished.id} mine · step 6</option>' in picker
    smoke = curator.get("/training/?preset=cpu-smoke").content.decode()
    assert f'name="model" value="{TINY_MODEL}"' in smoke
    assert not (Path(settings.DATA_DIR) / TINY_MODEL).exists()
    with django_capture_on_commit_callbacks(execute=False):
        launched = curator.post("/training/", LAUNCH | {"model": TINY_MODEL, "preset": "cpu-smoke", "steps": 2})
    assert launched.status_code == 302, launched.context["form"].errors if launched.context else launched
    run = TrainingRun.objects.exclude(id=finished.id).get()
    assert (Path(settings.DATA_DIR) / TINY_MODEL / "config.json").is_file()  # built on first use
    assert run.config["model"] == str(Path(settings.DATA_DIR).resolve() / TINY_MODEL)
