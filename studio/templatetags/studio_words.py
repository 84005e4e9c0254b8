"""Words and numbers as every page shows them (a builtin library: no `{% load %}`): the field's names for scaffolds
and run kinds, one spelling per status, scores rounded one way with full precision in a title, and a mean with its
spread only where there is a spread to show.

The API keeps the stored values (full precision, raw names); only pages read through these filters."""

from __future__ import annotations

import functools
import math
from numbers import Real

from django import template
from django.utils.html import format_html

register = template.Library()

SCORE_DIGITS = 4  # metric scores and milestone thresholds (MLE-bench's grader keeps 5; 4 reads at a glance)
REWARD_DIGITS = 3  # rewards, their means and spreads: a 0-1 scale
MISSING = "–"


def _number(value) -> float | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    if isinstance(value, Real):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def rounded(value, digits: int) -> str:
    """The text of a rounded number: fixed decimals, or significant digits where fixed ones would show only zeros."""
    number = _number(value)
    if number is None:
        return MISSING if value in (None, "") else str(value)
    if math.isnan(number) or math.isinf(number):
        return str(number)
    if number != 0 and abs(number) < 10 ** -digits:
        return f"{number:.{digits}g}"
    return f"{number:.{digits}f}"


def _rounded_html(value, digits: int):
    number = _number(value)
    if number is None:
        return rounded(value, digits)
    # repr keeps every digit the stored float has: what the API returns.
    return format_html('<span class="num-value" title="{}">{}</span>', repr(number), rounded(number, digits))


@register.filter
def score(value, digits: int = SCORE_DIGITS):
    """0.9679926560587515 -> <span title="0.9679926560587515">0.9680</span>; None -> "–"."""
    return _rounded_html(value, int(digits))


@register.filter
def reward(value):
    """A reward (0-1) to three decimals, full precision in the title."""
    return _rounded_html(value, REWARD_DIGITS)


@register.simple_tag
def mean_spread(mean, spread, n, digits: int = REWARD_DIGITS, show_n: bool = True):
    """"0.812 ± 0.031" over n > 1 values; over one value there is no spread to show: "1.000 n=1" and no ±
    (show_n=False where the count stands beside it already). n=None: the spread is shown whenever it exists."""
    count = _number(n)
    if _number(mean) is None:
        return MISSING
    if count is not None and count <= 1:
        if not show_n:
            return _rounded_html(mean, digits)
        return format_html('{} <small class="muted n-one">n={}</small>', _rounded_html(mean, digits), int(count))
    if _number(spread) is None:
        return _rounded_html(mean, digits)
    return format_html("{} ± {}", _rounded_html(mean, digits), _rounded_html(spread, digits))


@functools.cache  # the choices are fixed in code
def _status_words() -> dict[str, str]:
    from sandmle_web.jobs import JobState
    from tasks_app.models import SynthesizedTask
    from tasks_app.review.models import ReviewDecision

    words = {}
    for choices in (JobState.choices, ReviewDecision.Verdict.choices, SynthesizedTask.Status.choices):
        words.update({value: str(label).lower() for value, label in choices})
    return words


@register.filter
def status_word(value) -> str:
    """A stored status, state or verdict as the model's choices word it: "pending_review" -> "pending review"."""
    text = "" if value is None else str(value)
    return _status_words().get(text, text.replace("_", " "))


@register.filter
def field_name(value) -> str:
    """A scaffold or run kind as the field spells it ("mle_agent" -> "MLE-Agent", "grpo" -> "GRPO")."""
    from training_app.shared.presentation import KIND_LABELS, SCAFFOLD_LABELS

    text = "" if value is None else str(value)
    return SCAFFOLD_LABELS.get(text) or KIND_LABELS.get(text) or text


@register.filter
def field_names(values) -> str:
    """A list of scaffolds or kinds, each as the field spells it, joined by commas."""
    return ", ".join(field_name(value) for value in values or [])
