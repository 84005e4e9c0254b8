"""Task descriptions: images only from the studio's own origin, so a description cannot plant a tracking pixel in a
reviewer's browser."""

from __future__ import annotations

import pytest

from sandmle_web.markdown import render_markdown


@pytest.mark.parametrize("source", [
    "https://tracker.example/pixel.gif?reviewer=1", "http://tracker.example/p.gif", "//tracker.example/p.gif",
    "/\\tracker.example/p.gif", "data:image/gif;base64,R0lGOD", " https://tracker.example/p.gif",
])
def test_outside_images_lose_their_source(source):
    for text in (f"![pixel]({source})", f'<img src="{source}" alt="pixel">'):
        html = str(render_markdown(text))
        assert "tracker.example" not in html and "data:" not in html, html


def test_images_of_the_studio_itself_stay_and_links_are_untouched():
    html = str(render_markdown("![chart](/static/chart.png) and [docs](https://example.org/docs)"))
    assert '<img alt="chart" src="/static/chart.png">' in html
    assert 'href="https://example.org/docs"' in html
    srcset = str(render_markdown('<img src="/static/a.png" srcset="https://tracker.example/p.gif 2x">'))
    assert "tracker.example" not in srcset
