"""The query filters of the task-set list API (django-filter): a malformed value is a 400 naming its field."""

from __future__ import annotations

import django_filters

from sandmle_web.api_lists import name_filter
from tasks_app.models import TaskSet


class TaskSetFilter(django_filters.FilterSet):
    created_by = name_filter("created_by__username", "the creator's username")

    class Meta:
        model = TaskSet
        fields = ["created_by"]
