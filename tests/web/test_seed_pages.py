"""Seed pages and API: the bundled list with DNA, CSV uploads with a clear error for each bad input."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tasks_app.models import Seed
from tasks_app.seeds import held_uploads
from tasks_app.seeds import services as seed_services


def _csv_bytes(rows: int = 60) -> bytes:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=rows), "b": rng.integers(0, 5, size=rows)})
    frame["label"] = (frame["a"] > 0).astype(int)
    return frame.to_csv(index=False).encode()


@pytest.fixture
def bundled(db):
    seed_services.seeds_load_bundled()


def test_seed_list_shows_bundled_seeds_with_dna(client_for, bundled):
    response = client_for("viewer").get("/seeds/")
    assert response.status_code == 200
    for name in ("iris", "wine", "breast_cancer", "diabetes", "digits"):
        assert name.encode() in response.content
    detail = client_for("viewer").get("/seeds/iris/")
    assert detail.status_code == 200 and b"schema_version" in detail.content


def test_load_bundled_is_idempotent(bundled):
    assert seed_services.seeds_load_bundled() == []
    assert Seed.objects.count() == 5


def test_curator_uploads_a_csv_seed(client_for, bundled):
    upload = SimpleUploadedFile("mine.csv", _csv_bytes(), content_type="text/csv")
    response = client_for("curator").post("/seeds/", {"name": "mine", "file": upload, "target": "label"})
    assert response.status_code == 302, response.content.decode()[:2000]
    seed = Seed.objects.get(name="mine")
    assert seed.task_type == "binary" and seed.dna.data["task_type"] == "binary"


def test_a_refused_upload_keeps_the_entries_and_holds_the_file_for_the_next_send(client_for, bundled, users):
    curator = client_for("curator")
    upload = SimpleUploadedFile("my-wine.csv", _csv_bytes(), content_type="text/csv")
    response = curator.post("/seeds/", {"name": "my wine!", "file": upload, "target": "nope"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="form-error-summary"' in html and 'value="my wine!"' in html
    assert "Kept <strong>my-wine.csv</strong> from your last send" in html
    token = re.search(r'name="held_file" value="([^"]+)"', html).group(1)
    assert not Seed.objects.filter(name="my wine!").exists()
    # Another user cannot take the held file; a made-up or path-like token is no file at all.
    for role, held_file in (("admin", token), ("curator", "../../../etc/passwd"), ("curator", "x" * 32)):
        refused = client_for(role).post("/seeds/", {"name": "mine", "held_file": held_file, "target": "label"})
        assert refused.status_code == 400 and "choose it again" in refused.content.decode()
    # Sent again with the name and target fixed and no file chosen: the held file is used, then let go.
    response = client_for("curator").post("/seeds/", {"name": "mine", "held_file": token, "target": "label"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Seed.objects.get(name="mine").n_rows == 60
    assert held_uploads.take(user=users["curator"], token=token) is None


def test_a_user_holds_few_files(bundled, users, settings, tmp_path):
    settings.DATA_DIR = str(tmp_path)
    tokens = [held_uploads.hold(user=users["curator"], name=f"f{i}.csv", content=b"a,b\n") for i in range(5)]
    kept = [token for token in tokens if held_uploads.take(user=users["curator"], token=token)]
    assert kept == tokens[-held_uploads.HOLD_PER_USER:]
    assert held_uploads.take(user=users["curator"], token=tokens[-1]) == ("f4.csv", b"a,b\n")


def test_no_file_and_nothing_held_is_a_field_error(client_for, bundled):
    response = client_for("curator").post("/seeds/", {"name": "mine", "target": "label"})
    assert response.status_code == 400 and 'id="id_file-error"' in response.content.decode()


def test_viewer_cannot_upload(client_for, bundled):
    upload = SimpleUploadedFile("mine.csv", _csv_bytes(), content_type="text/csv")
    assert client_for("viewer").post("/seeds/", {"name": "mine", "file": upload, "target": "label"}).status_code == 403


@pytest.mark.parametrize("content, target, field, words", [
    (_csv_bytes(), "nope", "target", "nope"),
    (_csv_bytes(rows=5), "label", None, "rows"),
    (b"\xff\xfe\x00garbage\x00\x81", "label", None, ""),
    (pd.DataFrame({"a": range(60), "label": [1] * 60}).to_csv(index=False).encode(), "label", None, "constant"),
])
def test_bad_uploads_get_400_with_a_message(api_for, bundled, content, target, field, words):
    response = api_for("curator").post("/api/seeds/", {"name": "bad", "file": io.BytesIO(content), "target": target},
                                       format="multipart")
    assert response.status_code == 400, response.content
    body = response.json()
    message = " ".join(" ".join(v) for v in body.values()).lower()
    assert message.strip()
    if field:
        assert field in body
    assert words in message
    assert not Seed.objects.filter(name="bad").exists()


def test_duplicate_name_is_a_field_error(api_for, bundled):
    response = api_for("curator").post("/api/seeds/", {"name": "iris", "file": io.BytesIO(_csv_bytes()), "target": "label"},
                                       format="multipart")
    assert response.status_code == 400 and "already exists" in response.json()["name"][0]


def test_api_lists_seeds_with_dna(api_for, bundled):
    body = api_for("viewer").get("/api/seeds/").json()
    names = {seed["name"] for seed in body["results"]}
    assert {"iris", "digits"} <= names
    digits = api_for("viewer").get("/api/seeds/digits/").json()
    assert digits["modality"] == "image" and digits["dna"]["modality"] == "image"
