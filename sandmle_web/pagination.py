"""The API's pagination: limit/offset, with a strict parse so a huge or malformed value is a 400 naming it."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 10**9  # far past any real table; larger values overflow the database's integer


def _strict_int(request, name: str, *, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    # str.isdigit() accepts '²'; only ASCII digits parse as an int, and the length check keeps int() cheap.
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12 or not low <= int(raw) <= high:
        raise ValidationError({name: [f"expected a whole number from {low} to {high}"]})
    return int(raw)


class StudioPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500

    def get_limit(self, request):
        limit = _strict_int(request, self.limit_query_param, low=1, high=self.max_limit)
        return self.default_limit if limit is None else limit

    def get_offset(self, request):
        return _strict_int(request, self.offset_query_param, low=0, high=MAX_OFFSET) or 0
