"""A plotly figure read back from a rendered page: the JSON a template wrote with json_script under a script id."""

from __future__ import annotations

import json
import re


def page_figure(html: str, script_id: str) -> dict:
    found = re.search(rf'<script id="{re.escape(script_id)}" type="application/json">(.*?)</script>', html, re.S)
    assert found, f"no figure {script_id!r} on the page"
    return json.loads(found.group(1))
