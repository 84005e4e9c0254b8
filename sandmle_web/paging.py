"""One way to page a list in the studio: `paginate` turns a queryset into a Django Page that carries its own links."""

from __future__ import annotations

from dataclasses import dataclass
from functools import wraps

from django.core.paginator import Page, Paginator
from django.http import HttpRequest
from django.shortcuts import render

DEFAULT_PER_PAGE = 50


class PageParameterError(ValueError):
    """The page number in the query string is not a whole number from 1: the request is bad, not the server."""

    def __init__(self, param: str, raw: str):
        self.param = param
        super().__init__(f"{param}: expected a whole number from 1, got {raw[:40]!r}")


@dataclass(frozen=True)
class PageLinks:
    """Query strings of the first, previous, next and last pages ('' where there is none), filters kept."""

    first: str
    previous: str
    next: str
    last: str


def _query_with(request: HttpRequest, param: str, number: int) -> str:
    params = request.GET.copy()
    params[param] = str(number)
    return f"?{params.urlencode()}"


def _page_number(request: HttpRequest, param: str) -> int:
    raw = request.GET.get(param, "").strip()
    if not raw:
        return 1
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9) or int(raw) < 1:
        raise PageParameterError(param, raw)
    return int(raw)


def paginate(request: HttpRequest, queryset, *, per_page: int = DEFAULT_PER_PAGE, page_param: str = "page") -> Page:
    """The requested page of `queryset` (ordered by the caller), with `page.links` and `page.param` for the pager.

    A number past the end shows the last page rather than an error: a link saved before rows were deleted still
    lands somewhere useful. Anything that is not a whole number from 1 raises PageParameterError (a 400).
    """
    paginator = Paginator(queryset, per_page)
    page = paginator.page(min(_page_number(request, page_param), paginator.num_pages))
    last = paginator.num_pages
    page.param = page_param
    page.links = PageLinks(
        first=_query_with(request, page_param, 1) if page.number > 1 else "",
        previous=_query_with(request, page_param, page.number - 1) if page.has_previous() else "",
        next=_query_with(request, page_param, page.number + 1) if page.has_next() else "",
        last=_query_with(request, page_param, last) if page.number < last else "",
    )
    return page


def bad_page_is_400(view):
    """Wrap a list view so that a malformed page number is an HTTP 400 naming the parameter."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except PageParameterError as error:
            return render(request, "400.html", {"reason": str(error), "field": error.param}, status=400)

    return wrapped
