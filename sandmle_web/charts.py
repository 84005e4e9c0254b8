"""The studio's one plotly look: every chart (task, training, campaign, latency) names TEMPLATE in its layout.

plotly_white with the page's font, so a task's histograms and a run's curves read as one studio; the named template
is registered with plotly.io on import and resolved (inlined) when a figure is turned into JSON."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE = "sandmle_studio"
FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif'  # Pico's stack


def _studio_template() -> go.layout.Template:
    template = go.layout.Template(pio.templates["plotly_white"])
    template.layout.font = {"family": FONT_FAMILY, "size": 11, "color": "#373c44"}
    template.layout.title = {"font": {"size": 13}, "x": 0.01, "xanchor": "left"}
    template.layout.paper_bgcolor = "#ffffff"
    template.layout.plot_bgcolor = "#ffffff"
    return template


pio.templates[TEMPLATE] = _studio_template()


def resolved_template() -> dict:
    """The template as a figure's JSON carries it (what a test compares every figure against)."""
    import json

    return json.loads(go.Figure(layout={"template": TEMPLATE}).to_json())["layout"]["template"]
