"""Markdown to sanitised HTML for task descriptions (generated or imported text is still untrusted text).

Images may come only from the studio's own origin (a path such as /static/...): an outside <img src> in a description
would be a tracking pixel in every reviewer's browser, so its source is dropped and the image shows its alt text.

Bounded in size, nesting and time: python-markdown recurses once per nested list or quote and rescans the rest of a
block for every unclosed "[", "(" or "<", so 14 KB of brackets held a page for over a minute and 800 nested lists
ended in a RecursionError (a 500). Text past MAX_CHARS is cut, and text nesting deeper than MAX_NESTING (brackets,
list markers, quote marks, indentation) is not parsed at all: it is shown escaped, as preformatted text, under a
notice. What is rendered is cached by the text's digest, so a page that many viewers open renders it once.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlsplit

import markdown as markdown_lib
import nh3
from django.core.cache import cache
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# A generated description is a few kilobytes. Past the nesting bound, the slowest texts found (runs of "*_") still
# grow faster than their length: 50,000 characters of them render in under 2 s, and the result is cached.
MAX_CHARS = 50_000
# Real descriptions nest lists and quotes three or four deep and brackets two deep (a link inside brackets).
MAX_NESTING = 16
# Bumped when what is rendered changes, so that cached HTML from an older renderer is not served.
RENDERER_VERSION = 2
CACHE_SECONDS = 24 * 3600

# Attributes that make the browser fetch something on its own when the page opens.
_FETCHING = {("img", "src"), ("img", "srcset")}
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
# The containers a line opens before its text: indentation, quote marks and list markers, in any mix.
_LINE_CONTAINERS = re.compile(r"^(?:[ \t]|>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]))*")
_LIST_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?=[ \t])")
_BRACKET = re.compile(r"[\[\]()<>]")
_OPENING_OF = {"]": "[", ")": "(", ">": "<"}
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


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


def _line_depth(prefix: str) -> int:
    """Levels a line's leading containers open: a quote mark or list marker each, and a level per 4 columns."""
    markers = prefix.count(">") + len(_LIST_MARKER.findall(prefix))
    return markers + (prefix.count(" ") + 4 * prefix.count("\t")) // 4


def markdown_nesting(text: str) -> int:
    """How deep `text` would make the parser go: the deepest container prefix of a line outside fenced code, or the
    deepest run of unclosed "[", "(" or "<" within a block (the link and autolink patterns rescan the rest of the
    block for each)."""
    deepest, in_fence = 0, False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            deepest = max(deepest, _line_depth(_LINE_CONTAINERS.match(line).group()))
    for block in _BLANK_LINE.split(text):
        unclosed = dict.fromkeys(_OPENING_OF.values(), 0)
        for match in _BRACKET.finditer(block):
            mark = match.group()
            if mark in unclosed:
                unclosed[mark] += 1
                deepest = max(deepest, unclosed[mark])
            else:
                unclosed[_OPENING_OF[mark]] = max(unclosed[_OPENING_OF[mark]] - 1, 0)
    return deepest


def _plain(text: str, notice: str) -> str:
    return f'<p class="notice">{escape(notice)}</p><pre class="description-plain">{escape(text)}</pre>'


def _render(text: str) -> str:
    notice = ""
    if len(text) > MAX_CHARS:
        notice = f"This description is {len(text):,} characters long; only its first {MAX_CHARS:,} are shown."
        text = text[:MAX_CHARS]
    nesting = markdown_nesting(text)
    if nesting > MAX_NESTING:
        return _plain(text, f"This description nests {nesting:,} levels deep (more than {MAX_NESTING}), so it is "
                            "shown as plain text." + (" " + notice if notice else ""))
    html = nh3.clean(markdown_lib.markdown(text, extensions=["tables", "fenced_code"]),
                     attribute_filter=_keep_attribute)
    return (f'<p class="notice">{escape(notice)}</p>' if notice else "") + html


def render_markdown(text: str) -> SafeString:
    text = text or ""
    key = f"markdown:{RENDERER_VERSION}:{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}"
    html = cache.get(key)
    if html is None:
        html = _render(text)
        cache.set(key, html, CACHE_SECONDS)
    return mark_safe(html)
