"""The task-set picker: which approved tasks a filter offers, as one page of checkboxes or as a whole new set.

The same filter serves the task-set page (its query string) and the API (a `filter` object), so "every task
matching this filter" means one thing on both. The rule family is a hidden field: for anyone without the reviewer
role the filter ignores it, as the task lists do, so the size of a set never answers "is this task's rule X?".
"""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet

from accounts.roles import Role, has_role
from tasks_app.models import SynthesizedTask
from tasks_app.shared.filter_choices import modality_choices, rule_family_select, seed_choices

PICKER_FILTER_NAMES = ("q", "seed", "modality", "difficulty", "rule_family")
MAX_SEARCH_WORDS = 8  # each word is one more OR of three LIKEs; a longer query is no better a search


class TaskPickerFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_text", max_length=200,
                                  help_text="words that each appear in the task's id, title or domain")
    seed = django_filters.ChoiceFilter(field_name="seed__name", choices=seed_choices, empty_label="any",
                                       help_text="the seed's name")
    modality = django_filters.ChoiceFilter(choices=modality_choices, empty_label="any")
    difficulty = django_filters.ChoiceFilter(choices=SynthesizedTask.Difficulty.choices, empty_label="any")
    rule_family = django_filters.CharFilter(method="filter_rule_family", max_length=100, widget=rule_family_select(),
                                            help_text="reviewers only; ignored for other roles")

    class Meta:
        model = SynthesizedTask
        fields = list(PICKER_FILTER_NAMES)

    def filter_text(self, queryset, name, value):
        for word in value.split()[:MAX_SEARCH_WORDS]:
            queryset = queryset.filter(Q(task_id__icontains=word) | Q(title__icontains=word)
                                       | Q(domain_id__icontains=word))
        return queryset

    def filter_rule_family(self, queryset, name, value):
        if self.request is None or not has_role(self.request.user, Role.REVIEWER):
            return queryset
        return queryset.filter(rule_family=value)


def approved_tasks() -> QuerySet[SynthesizedTask]:
    """Approved tasks, newest first (the status index's order), with only the columns a picker row shows."""
    return (SynthesizedTask.objects.filter(status=SynthesizedTask.Status.APPROVED).select_related("seed")
            .only("task_id", "title", "domain_id", "modality", "difficulty", "created_at", "status", "seed__name")
            .order_by("-created_at", "task_id"))


def picker_filter(*, data, request) -> TaskPickerFilter:
    """The filter bound to `data` (a query string or the API's `filter`); check `.is_valid()` and `.errors`."""
    return TaskPickerFilter(data=data, queryset=approved_tasks(), request=request)


def applied_filters(filterset: TaskPickerFilter, *, request) -> dict[str, str]:
    """The filter values in force, as the page's inputs show them (the rule family only for reviewers)."""
    names = PICKER_FILTER_NAMES if has_role(request.user, Role.REVIEWER) else PICKER_FILTER_NAMES[:-1]
    cleaned = filterset.form.cleaned_data if filterset.is_bound and filterset.is_valid() else {}
    return {name: cleaned.get(name) or "" for name in names}
