"""Bad seed uploads on the page and through the API: a 400 naming the field, and no Seed row or file left behind."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tasks_app.models import Seed
from tasks_app.seeds import services as seed_services
from tests.bad_uploads import bad_uploads, good_csv

CASES = bad_uploads()


@pytest.fixture
def data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path / "data"
    settings.DATA_DIR.mkdir()
    return settings.DATA_DIR


def _files_under(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.is_file()]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_page_refuses_with_a_field_message(client_for, data_dir, case):
    upload = SimpleUploadedFile("seed.csv", case.content, content_type="text/csv")
    response = client_for("curator").post("/seeds/", {"name": "bad-seed", "file": upload, "target": case.target})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert case.field in errors, errors
    assert case.words in " ".join(errors[case.field]).lower(), errors
    # Shown next to the field on the page, and in the summary at the top that links to it.
    assert f'id="id_{case.field}-error"'.encode() in response.content, case.field
    assert b'id="form-error-summary"' in response.content
    assert not Seed.objects.filter(name="bad-seed").exists()
    # A refused file leaves nothing; a good file refused for its target is held for the next send, and only that.
    held = [p.relative_to(data_dir).parts[:2] for p in _files_under(data_dir)]
    assert held == ([] if case.field == "file" else [("uploads", "held")] * 2), held


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_api_refuses_with_a_field_error(api_for, data_dir, case):
    response = api_for("curator").post(
        "/api/seeds/", {"name": "bad-seed", "file": io.BytesIO(case.content), "target": case.target}, format="multipart")
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert case.field in body, body
    assert case.words in " ".join(body[case.field]).lower(), body
    assert not Seed.objects.filter(name="bad-seed").exists()
    assert _files_under(data_dir) == []


def test_empty_upload_says_so(client_for, api_for, data_dir):
    page = client_for("curator").post("/seeds/", {"name": "bad-seed", "target": "label",
                                                  "file": SimpleUploadedFile("seed.csv", b"")})
    api = api_for("curator").post("/api/seeds/", {"name": "bad-seed", "file": io.BytesIO(b""), "target": "label"},
                                  format="multipart")
    assert "empty" in " ".join(page.context["form"].errors["file"]).lower()
    assert "empty" in " ".join(api.json()["file"]).lower()


def test_a_failed_write_leaves_no_row_and_no_partial_file(db, data_dir):
    (data_dir / "seeds" / "blocked.csv").mkdir(parents=True)  # a directory where the file must go: the rename fails
    with pytest.raises(OSError):
        seed_services.seed_create_from_upload(name="blocked", content=good_csv(), target="label")
    assert not Seed.objects.filter(name="blocked").exists()
    assert _files_under(data_dir) == []


def test_a_good_upload_keeps_exactly_its_file(client_for, data_dir):
    upload = SimpleUploadedFile("seed.csv", good_csv(), content_type="text/csv")
    response = client_for("curator").post("/seeds/", {"name": "good-seed", "file": upload, "target": "label"})
    assert response.status_code == 302
    assert _files_under(data_dir) == [data_dir / "seeds" / "good-seed.csv"]
    assert (data_dir / "seeds" / "good-seed.csv").read_bytes() == good_csv()
