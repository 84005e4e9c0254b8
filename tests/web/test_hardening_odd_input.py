"""Odd input that used to be an HTTP 500 is a 400 naming the field (or, for a DNA, a finite value)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile


def _csv(extra: str) -> bytes:
    """One varying column and one constant (or all-missing) one: their only pair has no correlation."""
    rng = np.random.default_rng(0)
    rows = ["a,const,label"]
    for i in range(120):
        a = "inf" if i % 7 == 0 and extra == "inf" else f"{rng.normal():.4f}"
        rows.append(f"{a},{'' if extra == 'nan' else 5},{i % 2}")
    return ("\n".join(rows) + "\n").encode()


def test_seed_without_a_defined_correlation_stores_finite_dna(api_for, client_for):
    api, page_client = api_for("curator"), client_for("curator")
    for extra in ("constant", "inf", "nan"):
        upload = SimpleUploadedFile("s.csv", _csv(extra), content_type="text/csv")
        response = api.post("/api/seeds/", {"name": f"odd-{extra}", "file": upload, "target": "label"},
                                           format="multipart")
        assert response.status_code in (201, 400), response.content
        if response.status_code == 201:
            dna = response.json()["dna"]
            assert math.isfinite(dna["correlation_strength"])
            json.dumps(dna, allow_nan=False)  # no NaN or Infinity anywhere in what was stored
        page = page_client.post("/seeds/", {"name": f"odd2-{extra}", "target": "label",
                                                      "file": SimpleUploadedFile("s.csv", _csv(extra))})
        assert page.status_code in (302, 400)


@pytest.fixture
def seed_row(db):
    from tasks_app.models import Seed

    return Seed.objects.create(name="iris", source="bundled", target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)


def test_huge_rng_is_a_400_naming_it(api_for, client_for, seed_row):
    curator_api, curator_page = api_for("curator"), client_for("curator")
    for rng in (2**32, 2**63, 2**70):
        response = curator_api.post("/api/synthesis-runs/", {"seed": "iris", "count": 1, "rng": rng}, format="json")
        assert response.status_code == 400 and "rng" in response.json()
        page = curator_page.post("/seeds/iris/", {"count": 1, "rng": str(rng)})
        assert page.status_code == 400 and b"rng" in page.content


def test_odd_run_filter_is_a_400_naming_it(api_for, db):
    viewer = api_for("viewer")
    for run in ["\u00b2", "2" * 22, str(2**70), "-1", "1.5"]:
        response = viewer.get("/api/tasks/", {"run": run})
        assert response.status_code == 400 and "run" in response.json(), run


def test_pagination_is_bounded(api_for, db):
    viewer = api_for("viewer")
    for name, value in [("limit", str(2**63)), ("limit", "0"), ("limit", "\u00b2"), ("offset", str(2**63)),
                        ("offset", "-3")]:
        response = viewer.get("/api/seeds/", {name: value})
        assert response.status_code == 400 and name in response.json(), (name, value)


def test_pagination_within_bounds_still_works(api_for, seed_row):
    body = api_for("viewer").get("/api/seeds/", {"limit": "500", "offset": "0"}).json()
    assert body["count"] >= 1 and body["results"]
