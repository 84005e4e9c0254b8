"""Untrusted markdown costs a bounded page (issue 65): a description built to stall python-markdown (unclosed
brackets, lists or quotes nested hundreds deep, a huge text) is shown as escaped plain text or cut, under a notice,
and never reaches the parser; what is rendered is cached by the text's digest."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from sandmle_web import markdown
from sandmle_web.markdown import MAX_CHARS, MAX_NESTING, markdown_nesting, render_markdown
from tests.engine.rollout_bundles import make_bundle

# The attacks as reported: 14 KB of brackets held the page 70-120 s; 800 nested lists were a 500 (RecursionError);
# 3,000 took the web process to 6.8 GB.
BRACKETS = "[" * 20000 + "a" + "]" * 20000
NESTED_LIST_800 = "".join("  " * level + "- item\n" for level in range(800))
MARKERS_3000 = "- " * 3000 + "deep\n"
QUOTES_800 = ">" * 800 + " deep\n"
MIXED = "".join("> - " * level + "x\n" for level in range(1, 200))


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def task_with_description(db, tmp_path):
    from tasks_app.models import Seed, SynthesizedTask

    seed = Seed.objects.create(name="described", source="bundled", target="label", task_type="binary",
                               metric="roc_auc", modality="tabular", n_rows=160, n_features=4)

    def make(text: str) -> SynthesizedTask:
        index = SynthesizedTask.objects.count()
        bundle = make_bundle(tmp_path / "made", kind="binary", seed=index)
        (bundle / "public" / "description.md").write_text(text, encoding="utf-8")
        return SynthesizedTask.objects.create(
            task_id=f"described-{index}", seed=seed, status=SynthesizedTask.Status.PENDING_REVIEW, metric="roc_auc",
            milestones={"median": 0.7, "bronze": 0.8, "silver": 0.85, "gold": 0.9}, bundle_dir=str(bundle))

    return make


def _never_parsed(monkeypatch):
    """The parser itself refuses to run: the bounded path must not reach it."""
    def refuse(*args, **kwargs):
        raise AssertionError("python-markdown was called on text past the bounds")

    monkeypatch.setattr(markdown.markdown_lib, "markdown", refuse)


@pytest.mark.parametrize("text", [BRACKETS, NESTED_LIST_800, MARKERS_3000, QUOTES_800, MIXED],
                         ids=["brackets", "list-800", "markers-3000", "quotes-800", "quote-list-mix"])
def test_deeply_nested_text_is_shown_escaped_under_a_notice_without_parsing(text, monkeypatch):
    assert markdown_nesting(text) > MAX_NESTING
    _never_parsed(monkeypatch)
    html = str(render_markdown("<script>alert(1)</script>\n" + text))
    assert "levels deep (more than" in html and "shown as plain text" in html
    assert '<pre class="description-plain">' in html
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("text", [BRACKETS, NESTED_LIST_800, MARKERS_3000],
                         ids=["brackets", "list-800", "markers-3000"])
def test_a_viewer_opening_such_a_task_gets_the_page_with_the_notice(text, task_with_description, client_for,
                                                                    monkeypatch):
    task = task_with_description(text)
    _never_parsed(monkeypatch)
    response = client_for("viewer").get(f"/tasks/{task.task_id}/")
    assert response.status_code == 200
    assert b"shown as plain text" in response.content and b'class="description-plain"' in response.content


def test_a_huge_description_is_cut_with_a_notice():
    text = ("A plain paragraph of an honest description.\n\n" * 10000)
    html = str(render_markdown(text))
    assert len(text) > MAX_CHARS
    assert f"only its first {MAX_CHARS:,} are shown" in html
    assert html.count("<p>") <= MAX_CHARS // 40 + 2


def test_ordinary_nesting_still_renders_as_markdown():
    text = ("# Task\n\n- one\n    - two\n        - three\n\n> a quote\n> > inside\n\n"
            "See [the [docs]](https://example.org/docs).\n\n```\n" + "    " * 30 + "deep code\n```\n")
    assert markdown_nesting(text) <= MAX_NESTING  # indentation inside fenced code is not nesting
    html = str(render_markdown(text))
    assert "notice" not in html
    assert html.count("<ul>") == 3 and html.count("<blockquote>") == 2 and 'href="https://example.org/docs"' in html


def test_the_rendered_html_is_cached_by_the_text(monkeypatch):
    text = "# Cached\n\nOnce is enough."
    first = str(render_markdown(text))
    _never_parsed(monkeypatch)  # a second viewer reads the cache; the parser is not run again
    assert str(render_markdown(text)) == first
    assert "<h1>Cached</h1>" in first
    changed = "# Cached\n\nChanged."
    with pytest.raises(AssertionError):  # another text (a new task version) is rendered afresh
        render_markdown(changed)
