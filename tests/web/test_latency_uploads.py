"""Latency tables: an upload past its cap is cut off while it streams in (page and API), each user's unfinished studies
may keep only so much, and a study's table is removed when the study ends."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import StopUpload

from sandmle_web.jobs import JobState
from training_app.latency.uploads import LatencyTableLimit, sweep_finished_tables
from training_app.models import LatencyStudy


def _table(n: int) -> bytes:
    rng = np.random.default_rng(5)
    size = rng.normal(10, 3, n).round(2)
    return pd.DataFrame({"size": size, "age": rng.integers(1, 40, n),
                         "sold": np.where(size + rng.normal(0, 2, n) > 10, "yes", "no")}).to_csv(index=False).encode()


@pytest.fixture
def small_cap(monkeypatch):
    import sandmle.latency.study

    monkeypatch.setattr(sandmle.latency.study, "LARGE_CSV_MAX_BYTES", 40_000)


@pytest.fixture(autouse=True)
def no_tables_left(db):
    """The data directory outlives a test's database: a queued study's table must not reach the next test."""
    yield
    LatencyStudy.objects.update(state=JobState.CANCELLED)
    sweep_finished_tables()


def _launch(api, table: bytes):
    return api.post("/api/latency-studies/", {"table": SimpleUploadedFile("t.csv", table), "target": "sold",
                                              "seeds": 1, "pipelines": ["linear"]}, format="multipart")


def test_the_limit_stops_the_stream_at_the_chunk_that_crosses_it(rf, users, small_cap):
    request = rf.post("/latency/")
    request.user = users["curator"]
    handler = LatencyTableLimit(request)
    handler.new_file("table", "t.csv", "text/csv", None)
    assert handler.receive_data_chunk(b"x" * 30_000, 0) == b"x" * 30_000
    with pytest.raises(StopUpload):
        handler.receive_data_chunk(b"x" * 30_000, 30_000)
    assert handler.refused == "the file is larger than 39 KiB: the limit is 39 KiB per table"


def test_an_oversized_table_is_refused_as_it_streams_on_the_page_and_the_api(client_for, api_for, settings,
                                                                              small_cap):
    big = _table(6000)
    assert len(big) > 40_000
    page = client_for("curator").post("/latency/", {"table": SimpleUploadedFile("t.csv", big), "target": "sold",
                                                    "seeds": 1, "pipelines": ["linear"], "name": "big"})
    assert page.status_code == 400
    assert "larger than" in " ".join(page.context["form"].errors["table"])
    api = _launch(api_for("curator"), big)
    assert api.status_code == 400 and "larger than" in api.json()["table"][0]
    assert not LatencyStudy.objects.exists()
    assert not list((Path(settings.DATA_DIR) / "latency").glob("*/table.csv"))


def test_each_user_keeps_at_most_the_quota_and_an_ended_study_frees_it(api_for, settings,
                                                                        django_capture_on_commit_callbacks):
    table = _table(1500)
    settings.SANDMLE_LATENCY_TABLE_QUOTA_BYTES = int(len(table) * 1.5)
    curator = api_for("curator")
    with django_capture_on_commit_callbacks(execute=False):
        first = _launch(curator, table)
        assert first.status_code == 201, first.content
        second = _launch(curator, table)
    assert second.status_code == 400 and "quota" in second.json()["table"][0]
    study = LatencyStudy.objects.get(id=first.json()["id"])
    assert Path(study.table_path).is_file()
    # The study ended without its worker (a lost job the sweep failed): the next launch sweeps its table away.
    LatencyStudy.objects.filter(id=study.id).update(state=JobState.FAILED)
    with django_capture_on_commit_callbacks(execute=False):
        third = _launch(curator, table)
    assert third.status_code == 201, third.content
    assert not Path(study.table_path).exists() and LatencyStudy.objects.get(id=study.id).table_path == ""
    assert sweep_finished_tables() == 0


def test_a_study_removes_its_table_when_it_ends(api_for, django_capture_on_commit_callbacks):
    from workers.latency import run_latency_study

    with django_capture_on_commit_callbacks(execute=False):
        response = _launch(api_for("curator"), _table(1500))
    study = LatencyStudy.objects.get(id=response.json()["id"])
    folder = Path(study.table_path).parent
    assert folder.is_dir()
    assert run_latency_study(study.id) is True
    study.refresh_from_db()
    assert study.state == "succeeded", study.error
    assert study.table_path == "" and not folder.exists()
