"""Anonymous requests to every URL pattern but login, health, token sign-in and the favicon get a redirect to login,
401 or 403."""

from __future__ import annotations

from tests.web.url_routes import PARAMETER, url_routes

# The favicon redirects to a static file every page links (a 404 there is a console error on every page).
OPEN = {"login/", "health/", "api/token/", "logout/", "favicon.ico"}
SAMPLE = {"int": "1", "slug": "iris", "str": "x", "path": "x"}


def _concrete(route: str) -> str:
    # No object needs to exist: an anonymous request is refused before any lookup.
    return "/" + PARAMETER.sub(lambda m: SAMPLE.get(m.group(1) or "str", "x"), route)


def test_every_page_and_endpoint_needs_sign_in(client, db):
    routes = sorted({_concrete(route.route) for route in url_routes() if not route.is_regex})
    assert len(routes) > 20
    open_to_anyone = []
    for path in routes:
        if path.lstrip("/") in OPEN:
            continue
        response = client.get(path)
        if response.status_code == 405:  # a POST-only endpoint: ask the way it is used
            response = client.post(path)
        refused = response.status_code in (401, 403) or (
            response.status_code == 302 and "/login/" in response["Location"])
        if not refused:
            open_to_anyone.append((path, response.status_code))
    assert open_to_anyone == []


def test_the_admin_site_sends_anonymous_users_to_its_login(client, db):
    response = client.get("/admin/")
    assert response.status_code == 302 and "login" in response["Location"]
