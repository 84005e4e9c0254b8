"""Markdown to sanitised HTML for task descriptions (generated or imported text is still untrusted text).

Images may come only from the studio's own origin (a path such as /static/...): an outside <img src> in a description
would be a tracking pixel in every reviewer's browser, so its source is dropped and the image shows its alt text.
"""

from urllib.parse import urlsplit

import markdown as markdown_lib
import nh3
from django.utils.safestring import SafeString, mark_safe

# Attributes that make the browser fetch something on its own when the page opens.
_FETCHING = {("img", "src"), ("img", "srcset")}


def same_origin(url: str) -> bool:
    """A path on this studio's own origin: absolute-path relative ('/x'), with no scheme, host or '//' prefix."""
    url = url.strip()
    parts = urlsplit(url)
    return url.startswith("/") and not url.startswith("//") and not url.startswith("/\\") \
        and not parts.scheme and not parts.netloc


def _keep_attribute(tag: str, attribute: str, value: str) -> str | None:
    if (tag, attribute) in _FETCHING and (attribute == "srcset" or not same_origin(value)):
        return None
    return value


def render_markdown(text: str) -> SafeString:
    html = markdown_lib.markdown(text or "", extensions=["tables", "fenced_code"])
    return mark_safe(nh3.clean(html, attribute_filter=_keep_attribute))
