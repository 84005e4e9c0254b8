"""The query filters of the task list API (django-filter): a malformed value is a 400 naming its field."""

from __future__ import annotations

import django_filters

from accounts.roles import Role, has_role
from sandmle_web.api_lists import IdFilter, name_filter
from tasks_app.models import SynthesizedTask
from tasks_app.shared.filter_choices import domain_choices, modality_choices, rule_family_select, seed_choices


class TaskFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=SynthesizedTask.Status.choices, empty_label="any")
    seed = django_filters.ChoiceFilter(field_name="seed__name", choices=seed_choices, empty_label="any",
                                       help_text="the seed's name")
    domain = django_filters.ChoiceFilter(field_name="domain_id", choices=domain_choices, empty_label="any",
                                         help_text="the domain id")
    modality = django_filters.ChoiceFilter(choices=modality_choices, empty_label="any")
    task_type = django_filters.ChoiceFilter(
        choices=[(name, name) for name in ("binary", "multiclass", "regression")])
    difficulty = django_filters.ChoiceFilter(choices=SynthesizedTask.Difficulty.choices)
    # Free text to the filter (any value is ignored for non-reviewers, never a 400 that would confirm a name), a
    # select of the engine's families on the page.
    rule_family = django_filters.CharFilter(method="filter_rule_family", max_length=100, widget=rule_family_select(),
                                            help_text="reviewers only; ignored for other roles")
    assignee = name_filter("assigned_to__username", "the assigned reviewer's username")
    task_set = name_filter("task_sets__name", "the name of a task set holding the task")
    run = IdFilter(field_name="run_id", help_text="the synthesis run's id")

    class Meta:
        model = SynthesizedTask
        fields = ["status", "seed", "domain", "modality", "task_type", "difficulty", "rule_family", "assignee",
                  "task_set", "run"]

    def filter_rule_family(self, queryset, name, value):
        if not has_role(self.request.user, Role.REVIEWER):
            return queryset
        return queryset.filter(rule_family=value)
