"""The API's JSON parser: DRF's, with the nesting bound of sandmle.untrusted.bounded_json.

json.load recurses once per level, so an anonymous 10 KB body of "[[[[" on /api/token/ was a RecursionError and a
500. The body is counted first and refused past MAX_DEPTH with a 400 that says so. Every API view parses JSON through
this class: it is the default parser, and the views that name their own parsers name it too.
"""

from __future__ import annotations

import io

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from sandmle.untrusted.bounded_json import MAX_DEPTH, TooDeeplyNested, check_depth


class BoundedJSONParser(JSONParser):
    max_depth = MAX_DEPTH

    def parse(self, stream, media_type=None, parser_context=None):
        body = stream.read()  # at most DATA_UPLOAD_MAX_MEMORY_SIZE: Django refuses longer bodies before this
        try:
            check_depth(body, max_depth=self.max_depth)
        except TooDeeplyNested as error:
            raise ParseError(f"JSON parse error - {error}") from None
        return super().parse(io.BytesIO(body), media_type=media_type, parser_context=parser_context)
