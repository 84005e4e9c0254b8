"""Latency studies in the studio: field-level launch refusals, roles, a real study of a task's spec and of an uploaded
table run by the worker's task function, the page's per-seed charts and ratio, the API, cancellation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from training_app.latency import services as latency_services
from training_app.models import LatencyStudy


def _good(task_id: str) -> dict:
    # A small full scale and one cheap step keep a real study to a few seconds.
    return {"task": task_id, "full_rows": 3000, "seeds": 2, "pipelines": ["linear"], "name": "web"}


@pytest.fixture
def task_id(stored_tasks):
    return stored_tasks[0].task_id


def _table_bytes(n: int = 1500) -> bytes:
    rng = np.random.default_rng(3)
    size = rng.normal(10, 3, n).round(2)
    frame = pd.DataFrame({"size": size, "age": rng.integers(1, 40, n), "kind": rng.choice(["a", "b", "c"], n),
                          "sold": np.where(size + rng.normal(0, 2, n) > 10, "yes", "no")})
    return frame.to_csv(index=False).encode()


@pytest.mark.parametrize("change, field, words", [
    ({"seeds": 0}, "seeds", "greater than or equal"),
    ({"full_rows": 10}, "full_rows", "must be more than the task's synthesized"),
    ({"task": ""}, "task", "choose one of a task, a seed dataset or an uploaded table"),
    ({"seed": "iris"}, "task", "choose one of a task, a seed dataset or an uploaded table"),
    ({"pipelines": ["xgboost"]}, "pipelines", "not one of the available choices"),
    ({"task": "no-such-task"}, "task", "not one of the available choices"),
])
def test_bad_launch_is_a_field_error(client_for, task_id, change, field, words):
    response = client_for("curator").post("/latency/", _good(task_id) | change)
    assert response.status_code == 400
    assert any(words in message for message in response.context["form"].errors.get(field, [])), \
        response.context["form"].errors
    assert not LatencyStudy.objects.exists()


def test_a_table_that_cannot_serve_is_refused_at_the_form(client_for, task_id, settings):
    curator = client_for("curator")
    bad = SimpleUploadedFile("t.csv", _table_bytes(100))
    response = curator.post("/latency/", _good("") | {"table": bad, "target": "price"})
    assert response.status_code == 400 and "no column 'price'" in " ".join(response.context["form"].errors["target"])
    both = curator.post("/latency/", _good(task_id) | {"table": SimpleUploadedFile("t.csv", _table_bytes(100)),
                                                       "target": "sold"})
    assert both.status_code == 400 and "choose one of" in " ".join(both.context["form"].errors["task"])
    assert not LatencyStudy.objects.exists()
    assert not list((Path(settings.DATA_DIR) / "latency").glob("*/table.csv"))  # a refused table is not kept


def test_viewer_reads_but_cannot_launch(client_for, api_for, task_id):
    viewer = client_for("viewer")
    page = viewer.get("/latency/")
    assert page.status_code == 200 and b'id="latency-form"' not in page.content
    assert viewer.post("/latency/", _good(task_id)).status_code == 403
    assert api_for("viewer").post("/api/latency-studies/", _good(task_id), format="json").status_code == 403
    assert not LatencyStudy.objects.exists()
    assert b'href="/latency/"' in viewer.get("/campaigns/").content  # the nav's entry under Evaluation


def test_a_study_of_a_task_runs_on_the_worker_and_charts_each_seed(client_for, task_id,
                                                                    django_capture_on_commit_callbacks):
    from workers.latency import run_latency_study

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for("curator").post("/latency/", _good(task_id))
    assert response.status_code == 302 and len(callbacks) == 1
    study = LatencyStudy.objects.get()
    assert study.queue == "sandbox" and study.full_rows == 3000
    assert run_latency_study(study.id) is True
    assert run_latency_study(study.id) is False  # a redelivered message finds the row claimed
    study.refresh_from_db()
    assert study.state == "succeeded", study.error
    result = study.result
    assert [run["seed"] for run in result["runs"]] == [0, 1] and result["full_rows"] == 3000
    assert all(set(run["full"]) == set(run["synth"]) == {"linear"} for run in result["runs"])
    viewer = client_for("viewer")
    page = viewer.get(f"/latency/{study.id}/")
    html = page.content.decode()
    assert f"{result['speedup']:.1f}×" in html and html.count("<tr><td>") == 2  # a row per seed
    assert 'data-figure="latency-steps-figure"' in html and 'data-figure="latency-ratios-figure"' in html
    figure = page.context["figures"]["steps"]
    assert [trace["type"] for trace in figure["data"]] == ["box", "box"] and figure["layout"]["yaxis"]["type"] == "log"
    assert sorted(figure["data"][0]["y"]) == sorted(run["full"]["linear"] for run in result["runs"])
    progress = viewer.get(f"/jobs/training_app.latencystudy/{study.id}/progress/").json()
    assert progress["state"] == "succeeded" and progress["progress"] == 1.0
    assert json.loads(viewer.get(f"/latency/{study.id}/study.json").content)["speedup"] == result["speedup"]
    listed = viewer.get("/latency/").content.decode()
    assert f"{result['speedup']:.1f}×" in listed


def test_an_uploaded_table_through_the_api(api_for, client_for, users, task_id, django_capture_on_commit_callbacks):
    from workers.latency import run_latency_study

    curator = api_for("curator")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = curator.post("/api/latency-studies/", {
            "table": SimpleUploadedFile("Shop Sales.csv", _table_bytes()), "target": "sold", "seeds": 1,
            "pipelines": ["linear"]}, format="multipart")
    assert response.status_code == 201, response.content
    assert response.json()["table_name"] == "Shop Sales.csv" and len(callbacks) == 1
    study_id = response.json()["id"]
    assert run_latency_study(study_id) is True
    detail = api_for("viewer").get(f"/api/latency-studies/{study_id}/").json()
    assert detail["state"] == "succeeded", detail["error"]
    assert detail["result"]["source"] == "csv" and detail["result"]["full_rows"] == 1200
    assert 50 <= detail["result"]["synth_rows"] <= 200
    listed = api_for("viewer").get("/api/latency-studies/").json()
    assert [row["id"] for row in (listed["results"] if isinstance(listed, dict) else listed)] == [study_id]
    bad = curator.post("/api/latency-studies/", {"task": "missing", "seeds": 1}, format="json")
    assert bad.status_code == 400 and "task" in bad.json()
    page = client_for("viewer").get(f"/latency/{study_id}/").content.decode()
    assert "table Shop Sales.csv (sold)" in page


def test_cancel_of_a_queued_study_and_of_a_running_one(client_for, api_for, users, task_id,
                                                       django_capture_on_commit_callbacks):
    from tasks_app.models import SynthesizedTask

    task = SynthesizedTask.objects.get(task_id=task_id)
    with django_capture_on_commit_callbacks(execute=False):
        queued = latency_services.latency_study_create(task=task, full_rows=3000, seeds=1, pipelines=["linear"],
                                                       user=users["curator"])
        running = latency_services.latency_study_create(task=task, full_rows=3000, seeds=3, pipelines=["linear"],
                                                        user=users["curator"])
    assert client_for("viewer").post(f"/latency/{queued.id}/").status_code == 403
    assert api_for("curator").post(f"/api/latency-studies/{queued.id}/cancel/").json()["state"] == "cancelled"
    assert latency_services.latency_study_execute(study_id=queued.id) is False
    # A running one is stopped at its next heartbeat (the engine's stop between sizes: tests/engine/test_latency_csv).
    LatencyStudy.objects.filter(id=running.id).update(state="running")
    assert api_for("curator").post(f"/api/latency-studies/{running.id}/cancel/").json()["state"] == "running"
    assert LatencyStudy.beat(running.id, progress=0.5) is False


def test_a_study_of_a_seed_dataset_draws_a_spec_on_the_worker(api_for, stored_tasks,
                                                            django_capture_on_commit_callbacks):
    from workers.latency import run_latency_study

    curator = api_for("curator")
    refused = curator.post("/api/latency-studies/", {"seed": "iris", "full_rows": 150}, format="json")
    assert refused.status_code == 400 and "must be more than the 200" in refused.json()["full_rows"][0]
    assert curator.post("/api/latency-studies/", {"seed": "nope"}, format="json").json() == \
        {"seed": ["no seed 'nope'"]}
    with django_capture_on_commit_callbacks(execute=False):
        response = curator.post("/api/latency-studies/", {"seed": "iris", "full_rows": 2000, "seeds": 1,
                                                          "pipelines": ["linear"]}, format="json")
    assert response.status_code == 201 and response.json()["seed"] == "iris"
    assert run_latency_study(response.json()["id"]) is True
    study = LatencyStudy.objects.get(id=response.json()["id"])
    assert study.state == "succeeded", study.error
    assert study.result["task_id"] and "iris" not in study.result["task_id"] and 50 <= study.result["synth_rows"] <= 200
    assert study.result["full_rows"] == 2000 and study.source_label == "seed iris"
