"""The OpenAPI schema and its docs: signed-in users only, served locally (no CDN), and valid without warnings."""

from __future__ import annotations

import re

import pytest
import yaml
from django.core.management import call_command


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_anonymous_visitors_get_no_schema_or_docs(client, url):
    response = client.get(url)
    assert response.status_code in (302, 401)
    if response.status_code == 302:
        assert response["Location"].startswith("/login/")
    assert b"openapi" not in response.content


def test_viewer_reads_the_schema_by_token(api_for):
    response = api_for("viewer").get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "SandMLE Studio API"
    assert "/api/tasks/" in schema["paths"] and "/api/schema/" not in schema["paths"]


@pytest.mark.parametrize("url, asset", [("/api/docs/", "swagger-ui-bundle.js"), ("/api/redoc/", "redoc.standalone.js")])
def test_docs_pages_load_their_scripts_from_our_static_files(client_for, url, asset):
    response = client_for("viewer").get(url)
    assert response.status_code == 200
    page = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any(source.endswith(asset) for source in sources), sources
    # Every asset the page loads is ours: a relative /static/ path, never another host.
    assert all(source.startswith("/static/") or source.startswith("/api/") for source in sources), sources


def test_schema_generates_without_errors_or_warnings(db, tmp_path):
    """What `manage.py spectacular --validate --fail-on-warn` checks, so an unannotated view fails here first."""
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(out), "--validate", "--fail-on-warn")
    schema = yaml.safe_load(out.read_text())
    assert schema["paths"], "the schema lists no endpoint"
