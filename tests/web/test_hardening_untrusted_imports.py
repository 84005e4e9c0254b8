"""Untrusted JSON inside imported archives (issue 65): a grading.json or task.json nested thousands deep, and a NaN in a
task's spec, are each refused by name; and no refusal a reviewer reads names a host path (the data directory, the
import's or the upload's folders), only paths relative to the bundle."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from tasks_app.models import SynthesizedTask
from tests.web.test_hostile_archive_imports import leftover_bundle_folders, made_bundles, run_import, tar_of

DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture(autouse=True)
def own_data_dir(settings, tmp_path):
    settings.DATA_DIR = str(tmp_path / "data")


def _host_free(text: str) -> None:
    for host_part in (settings.DATA_DIR, "/tmp/", "sandmle-upload-", "/bundles/import-", "/uploads/"):
        assert host_part not in text, (host_part, text)


def test_deep_and_nan_json_in_a_bundle_are_refused_by_name_without_host_paths(
        client_for, tmp_path, django_capture_on_commit_callbacks):
    good, deep_grading, deep_task, nan_spec, no_milestones = made_bundles(
        tmp_path, ("good-a", "deep-grading", "deep-task", "nan-spec", "no-milestones"))
    (deep_grading / "private" / "grading.json").write_text(DEEP)
    (deep_task / "task.json").write_text('{"task_id": "deep-task", "spec": ' + DEEP + "}")
    (nan_spec / "task.json").write_text('{"task_id": "nan-spec", "spec": {"noise": NaN}}')
    grading = json.loads((no_milestones / "private" / "grading.json").read_text())
    del grading["milestones"]
    (no_milestones / "private" / "grading.json").write_text(json.dumps(grading))
    reviewer = client_for("reviewer")
    job = run_import(reviewer, tar_of(tmp_path / "set"), django_capture_on_commit_callbacks)
    assert job.state == "succeeded" and job.summary["imported"] == ["good-a"]
    reasons = {entry["task"]: entry["reason"] for entry in job.summary["refused"]}
    assert reasons["deep-grading"] == ("private/grading.json is not valid JSON: nested deeper than 100 levels of "
                                       "arrays and objects")
    assert "task.json is not readable JSON (nested deeper than 100 levels" in reasons["deep-task"]
    assert "NaN is not a JSON number" in reasons["nan-spec"]
    assert reasons["no-milestones"] == "private/grading.json lacks milestones"
    for reason in reasons.values():
        _host_free(reason)
    page = reviewer.get(f"/task-archives/import/{job.id}/").content.decode()
    assert "nested deeper than 100 levels" in page
    _host_free(page)
    assert list(SynthesizedTask.objects.values_list("task_id", flat=True)) == ["good-a"]
    assert leftover_bundle_folders() == []


def test_a_nan_spec_reaching_the_store_is_refused_in_words_not_by_the_database(
        client_for, tmp_path, django_capture_on_commit_callbacks):
    # The sandmle and MLE-bench layouts write their own task.json; a store that reads a NaN spec still names it.
    from sandmle_web.errors import ServiceError
    from tasks_app.task_archives.models import TaskArchiveImport
    from tasks_app.task_archives.services import imported_task_store

    [bundle] = made_bundles(tmp_path, ("nan-late",))
    (bundle / "task.json").write_text('{"task_id": "nan-late", "spec": {"rate": Infinity}}')
    job = TaskArchiveImport.objects.create(format="bundle", filename="x.tar.gz")
    with pytest.raises(ServiceError, match="task.json: Infinity is not a JSON number"):
        imported_task_store(bundle=bundle, job=job)
    assert not SynthesizedTask.objects.exists()
