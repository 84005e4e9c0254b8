"""Task sets leave and enter the studio as archives: a reviewer's export is built by the worker's task and downloads
in each layout; an uploaded archive is imported task by task (waiting for review) and a hostile one refused whole."""

from __future__ import annotations

import io
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tasks_app.models import SynthesizedTask
from tasks_app.task_archives.models import TaskArchiveImport, TaskSetExport
from tests.engine.rollout_bundles import make_bundle


def archive_names(content: bytes) -> set[str]:
    with tarfile.open(fileobj=io.BytesIO(content), mode="r:gz") as tar:
        return {member.name for member in tar.getmembers() if member.isfile()}


def body(response) -> bytes:
    return b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content


@pytest.mark.parametrize("fmt, listed", [("mlebench", "web-set/experiments/splits/web-set.txt"),
                                         ("sandmle", "web-set/ok_competitions_sanity.json"),
                                         ("bundle", "web-set/task_set.json")])
def test_reviewer_exports_a_task_set_built_by_the_worker(client_for, task_set, fmt, listed,
                                                         django_capture_on_commit_callbacks):
    from workers.task_archives import build_task_set_archive

    reviewer = client_for("reviewer")
    assert f"/task-sets/{task_set.name}/export/" in reviewer.get("/task-sets/").content.decode()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = reviewer.post(f"/task-sets/{task_set.name}/export/", {"format": fmt})
    export = TaskSetExport.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/task-set-exports/{export.id}/"
    assert len(callbacks) == 1 and export.state == "queued"
    assert reviewer.get(f"/task-set-exports/{export.id}/archive.tar.gz").status_code == 404  # not built yet
    assert build_task_set_archive(export.id) is True
    export.refresh_from_db()
    assert export.state == "succeeded" and export.task_ids == sorted(task_set.tasks.values_list("task_id", flat=True))
    page = reviewer.get(f"/task-set-exports/{export.id}/").content.decode()
    assert f"/task-set-exports/{export.id}/archive.tar.gz" in page
    download = reviewer.get(f"/task-set-exports/{export.id}/archive.tar.gz")
    assert download.status_code == 200 and download["Content-Disposition"].endswith(f'web-set-{fmt}.tar.gz"')
    assert listed in archive_names(body(download))
    # The same set and layout again: the finished archive, no new job.
    with django_capture_on_commit_callbacks(execute=False) as again:
        assert reviewer.post(f"/task-sets/{task_set.name}/export/", {"format": fmt})["Location"] == \
            f"/task-set-exports/{export.id}/"
    assert not again and TaskSetExport.objects.count() == 1


def test_curators_and_viewers_get_no_archive(client_for, api_for, task_set):
    for role in ("viewer", "curator"):
        assert client_for(role).get(f"/task-sets/{task_set.name}/export/").status_code == 403
        assert client_for(role).post(f"/task-sets/{task_set.name}/export/", {"format": "bundle"}).status_code == 403
        assert api_for(role).post(f"/api/task-sets/{task_set.name}/exports/", {"format": "bundle"},
                                  format="json").status_code == 403
        assert "/export/" not in client_for(role).get("/task-sets/").content.decode()
    assert not TaskSetExport.objects.exists()


def test_api_export_then_download(api_for, task_set, django_capture_on_commit_callbacks):
    from workers.task_archives import build_task_set_archive

    api = api_for("reviewer")
    bad = api.post(f"/api/task-sets/{task_set.name}/exports/", {"format": "zip"}, format="json")
    assert bad.status_code == 400 and "format" in bad.json()
    assert api.post("/api/task-sets/no-such-set/exports/", {"format": "bundle"}, format="json").status_code == 404
    with django_capture_on_commit_callbacks(execute=False):
        created = api.post(f"/api/task-sets/{task_set.name}/exports/", {"format": "bundle"}, format="json")
    assert created.status_code == 202 and created.json()["download_url"] is None
    build_task_set_archive(created.json()["id"])
    detail = api.get(f"/api/task-set-exports/{created.json()['id']}/").json()
    assert detail["state"] == "succeeded" and detail["download_url"].endswith("/archive/")
    archive = api.get(detail["download_url"])
    assert archive.status_code == 200 and "web-set/task_set.json" in archive_names(body(archive))


def bundle_archive(tmp_path, *, ids=("imported-a", "imported-b")) -> bytes:
    from sandmle.archives.build import build_archive

    bundles = []
    for index, task_id in enumerate(ids):
        bundle = make_bundle(tmp_path / "made", kind="binary", seed=index)
        bundles.append(bundle.rename(bundle.parent / task_id))
        (bundles[-1] / "task.json").write_text(f'{{"task_id": "{task_id}", "spec": {{}}}}')
    build_archive(bundles, tmp_path / "upload.tar.gz", fmt="bundle", set_name="shared")
    return (tmp_path / "upload.tar.gz").read_bytes()


def upload(client, content: bytes, *, name="upload.tar.gz", fmt="bundle", callbacks):
    with callbacks(execute=False):
        return client.post("/task-archives/import/", {"file": SimpleUploadedFile(name, content), "format": fmt})


def test_uploaded_archive_imports_its_tasks_for_review(client_for, users, tmp_path, django_capture_on_commit_callbacks):
    from sandmle_web.errors import ServiceError
    from tasks_app.review import services as review_services
    from tasks_app.synthesis import services as synthesis_services
    from tasks_app.task_sets import services as task_set_services
    from workers.task_archives import import_task_archive

    reviewer = client_for("reviewer")
    response = upload(reviewer, bundle_archive(tmp_path), callbacks=django_capture_on_commit_callbacks)
    job = TaskArchiveImport.objects.get()
    assert response.status_code == 302 and job.queue == "sandbox" and job.state == "queued"
    assert import_task_archive(job.id) is True
    job.refresh_from_db()
    assert job.state == "succeeded" and job.summary == {"imported": ["imported-a", "imported-b"], "refused": []}
    tasks = SynthesizedTask.objects.filter(task_id__startswith="imported-")
    assert {task.status for task in tasks} == {"pending_review"} and {task.seed.name for task in tasks} == {"imported"}
    page = reviewer.get(f"/task-archives/import/{job.id}/").content.decode()
    assert "/tasks/imported-a/" in page and "waiting for review" in page
    assert client_for("viewer").get("/tasks/imported-a/").status_code == 200
    # Reviewed and approved, an imported task forms task sets like any other; its seed synthesizes nothing.
    review_services.task_approve(task=tasks.get(task_id="imported-a"), user=users["reviewer"])
    assert task_set_services.task_set_create(name="from-import", task_ids=["imported-a"], user=users["curator"])
    with pytest.raises(ServiceError, match="placeholder seed"):
        synthesis_services.synthesis_run_create(seed=tasks.first().seed, count=1, user=users["curator"])
    # The same archive again: its tasks are already here, each refused with that reason; nothing is replaced.
    reviewer = client_for("reviewer")  # one test client: signed in as the viewer above
    upload(reviewer, bundle_archive(tmp_path / "again"), callbacks=django_capture_on_commit_callbacks)
    second = TaskArchiveImport.objects.latest("id")
    import_task_archive(second.id)
    second.refresh_from_db()
    assert second.state == "failed" and second.error.startswith("no task could be imported (2 refused")
    assert {entry["reason"] for entry in second.summary["refused"]} == {"a task with this id is already in the studio"}


def test_a_hostile_archive_is_refused_whole_and_bad_uploads_are_field_errors(
        client_for, tmp_path, django_capture_on_commit_callbacks):
    from workers.task_archives import import_task_archive

    hostile = io.BytesIO()
    with tarfile.open(fileobj=hostile, mode="w:gz") as tar:
        link = tarfile.TarInfo("set/evil/private/answers.csv")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    reviewer = client_for("reviewer")
    upload(reviewer, hostile.getvalue(), callbacks=django_capture_on_commit_callbacks)
    job = TaskArchiveImport.objects.get()
    import_task_archive(job.id)
    job.refresh_from_db()
    assert job.state == "failed" and job.error == "archive refused: member 'set/evil/private/answers.csv': a link"
    assert not SynthesizedTask.objects.exists()
    for name, fmt, field in (("tasks.exe", "bundle", "file"), ("tasks.tar.gz", "rar", "format")):
        refused = upload(reviewer, b"x", name=name, fmt=fmt, callbacks=django_capture_on_commit_callbacks)
        assert refused.status_code == 400 and refused.context["form"].errors[field]
    assert TaskArchiveImport.objects.count() == 1
    assert client_for("curator").post("/task-archives/import/", {"format": "bundle"}).status_code == 403
