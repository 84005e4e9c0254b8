"""Markdown to sanitised HTML for task descriptions (generated text is still untrusted text)."""

import markdown as markdown_lib
import nh3
from django.utils.safestring import SafeString, mark_safe


def render_markdown(text: str) -> SafeString:
    html = markdown_lib.markdown(text or "", extensions=["tables", "fenced_code"])
    return mark_safe(nh3.clean(html))
