"""JSON nested past a depth is a 400 in every API (issue 65): a 10 KB body of "[" 5,000 deep was a 500
(RecursionError) on the anonymous /api/token/ and on /api/training-runs/; now the parser counts the depth first."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.parsers import JSONParser
from rest_framework.test import APIClient

from sandmle.untrusted.bounded_json import MAX_DEPTH
from sandmle_web.parsers import BoundedJSONParser

DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"name": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"


def _refused_as_too_deep(response) -> None:
    assert response.status_code == 400, response.content
    assert f"nested deeper than {MAX_DEPTH} levels" in response.json()["detail"]


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT], ids=["array", "object"])
def test_deep_json_to_the_anonymous_token_endpoint_is_a_400(body, db):
    _refused_as_too_deep(APIClient().post("/api/token/", body, content_type="application/json"))


@pytest.mark.parametrize("path", ["/api/training-runs/", "/api/rollout-batches/", "/api/campaigns/",
                                  "/api/task-sets/", "/api/synthesis-runs/", "/api/latency-studies/",
                                  "/api/review/bulk/"])
def test_deep_json_to_a_curator_api_is_a_400(path, api_for):
    role = "reviewer" if path.startswith("/api/review/") else "curator"
    _refused_as_too_deep(api_for(role).post(path, DEEP, content_type="application/json"))


def test_json_within_the_depth_still_reaches_the_view(api_for):
    nested = "[" * 50 + "]" * 50
    response = api_for("curator").post("/api/training-runs/", {"task_set": "no-such-set", "model": "m",
                                                               "scaffold_options": {"x": [[["fine"]]]}},
                                       format="json")
    assert "nested deeper" not in response.content.decode()
    shallow = APIClient().post("/api/token/", {"username": nested, "password": "x"}, format="json")
    assert shallow.status_code == 400 and "nested deeper" not in shallow.content.decode()


def _api_views(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_views(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None) or getattr(pattern.callback, "view_class", None)
            if view_class is not None and hasattr(view_class, "parser_classes"):
                yield prefix + str(pattern.pattern), view_class


def test_every_api_view_parses_json_through_the_bounded_parser():
    views = list(_api_views(get_resolver().url_patterns))
    assert len(views) > 30  # the walk found the API
    for route, view_class in views:
        json_parsers = [parser for parser in view_class.parser_classes if issubclass(parser, JSONParser)]
        assert all(issubclass(parser, BoundedJSONParser) for parser in json_parsers), route
