"""Every route of the URL configuration, walked from the root resolver, for the tests that check access route by route."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

# <converter:name> in a route; a bare <name> is a str.
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Route:
    route: str  # the whole route from the root, e.g. "api/tasks/<str:task_id>/"
    name: str | None
    callback: object

    @property
    def parameters(self) -> list[str]:
        return [match.group(2) for match in PARAMETER.finditer(self.route)]

    @property
    def is_regex(self) -> bool:
        return "(?P" in self.route

    def url(self, values: dict) -> str:
        """The route with each parameter replaced by its value from `values` (by name)."""
        return "/" + PARAMETER.sub(lambda match: str(values[match.group(2)]), self.route)

    @property
    def api_view(self):
        """The REST framework view class behind the route, or None for a plain Django view.

        A REST framework view wrapped in a page decorator (login_required around the API docs) is a page: it
        answers to a browser's session, and functools.wraps copies `cls` onto the wrapper."""
        if hasattr(self.callback, "__wrapped__"):
            return None
        return getattr(self.callback, "cls", None)

    @property
    def api_methods(self) -> set[str] | None:
        """The HTTP methods a REST framework view has handlers for (None for a plain Django view)."""
        view = self.api_view
        if view is None:
            return None
        return {method for method in HTTP_METHODS if method in view.http_method_names and hasattr(view, method)}


def _walk(patterns, prefix: str):
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield Route(route=route, name=pattern.name, callback=pattern.callback)


def url_routes(*, skip_admin: bool = True) -> list[Route]:
    """Every route of the project's URLconf, in resolution order; the admin site's own routes left out if asked."""
    routes = list(_walk(get_resolver().url_patterns, ""))
    return [route for route in routes if not (skip_admin and route.route.startswith("admin/"))]
