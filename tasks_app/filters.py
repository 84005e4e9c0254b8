"""The query filters of the task side's API lists (django-filter): a malformed value is a 400 naming its field.

Names (seed, task set, assignee) are matched exactly; a well-formed name that matches nothing gives an empty page,
as a search would. The rule family is a hidden field: only reviewers filter by it; for anyone else the filter is
not applied, the same as on the task pages, so a list's length never answers "is this task's rule X?".
"""

from __future__ import annotations

import django_filters

from accounts.roles import Role, has_role
from sandmle_web.api_lists import IdFilter
from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun, SynthesizedTask, TaskSet


def _name_filter(field_name: str, help_text: str) -> django_filters.CharFilter:
    return django_filters.CharFilter(field_name=field_name, max_length=150, help_text=help_text)


class SeedFilter(django_filters.FilterSet):
    source = django_filters.ChoiceFilter(choices=Seed.Source.choices)
    task_type = django_filters.ChoiceFilter(choices=[(name, name) for name in ("binary", "multiclass", "regression")])
    modality = django_filters.CharFilter(max_length=16)

    class Meta:
        model = Seed
        fields = ["source", "task_type", "modality"]


class SynthesisRunFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    seed = _name_filter("seed__name", "the seed's name")

    class Meta:
        model = SynthesisRun
        fields = ["state", "seed"]


class TaskFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=SynthesizedTask.Status.choices)
    seed = _name_filter("seed__name", "the seed's name")
    domain = django_filters.CharFilter(field_name="domain_id", max_length=100, help_text="the domain id")
    modality = django_filters.CharFilter(max_length=16)
    task_type = django_filters.ChoiceFilter(
        choices=[(name, name) for name in ("binary", "multiclass", "regression")])
    difficulty = django_filters.ChoiceFilter(choices=SynthesizedTask.Difficulty.choices)
    rule_family = django_filters.CharFilter(
        method="filter_rule_family", max_length=100, help_text="reviewers only; ignored for other roles")
    assignee = _name_filter("assigned_to__username", "the assigned reviewer's username")
    task_set = _name_filter("task_sets__name", "the name of a task set holding the task")
    run = IdFilter(field_name="run_id", help_text="the synthesis run's id")

    class Meta:
        model = SynthesizedTask
        fields = ["status", "seed", "domain", "modality", "task_type", "difficulty", "rule_family", "assignee",
                  "task_set", "run"]

    def filter_rule_family(self, queryset, name, value):
        if not has_role(self.request.user, Role.REVIEWER):
            return queryset
        return queryset.filter(rule_family=value)


class TaskSetFilter(django_filters.FilterSet):
    created_by = _name_filter("created_by__username", "the creator's username")

    class Meta:
        model = TaskSet
        fields = ["created_by"]
