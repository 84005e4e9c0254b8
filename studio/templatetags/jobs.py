"""Template tags of job pages: a queued job's wait, and whether a worker will take it (studio.selectors)."""

from __future__ import annotations

from django import template

from studio import selectors

register = template.Library()


@register.simple_tag
def job_wait_note(job) -> str:
    return selectors.job_wait_note(job)
