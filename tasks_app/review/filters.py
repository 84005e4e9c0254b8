"""The review queue's filters (django-filter), shared by the queue page, its saved views and the API.

A malformed value is a 400 naming its field. The queue shows pending tasks unless another status is asked for.
"""

from __future__ import annotations

import django_filters
from django.contrib.auth import get_user_model

from tasks_app.models import SynthesizedTask
from tasks_app.shared.filter_choices import domain_choices, modality_choices, rule_family_choices, seed_choices

FILTER_NAMES = ("seed", "domain", "modality", "rule_family", "difficulty", "status", "assignee")
UNASSIGNED = "-"  # the assignee value that asks for tasks nobody has taken


class ReviewQueueFilter(django_filters.FilterSet):
    seed = django_filters.ChoiceFilter(field_name="seed__name", choices=seed_choices, empty_label="any",
                                       help_text="the seed's name")
    domain = django_filters.ChoiceFilter(field_name="domain_id", choices=domain_choices, empty_label="any",
                                         help_text="the domain id")
    modality = django_filters.ChoiceFilter(choices=modality_choices, empty_label="any")
    rule_family = django_filters.ChoiceFilter(choices=rule_family_choices, empty_label="any",
                                              help_text="the hidden rule's family")
    difficulty = django_filters.ChoiceFilter(choices=SynthesizedTask.Difficulty.choices, empty_label="any")
    status = django_filters.ChoiceFilter(choices=SynthesizedTask.Status.choices, method="filter_status",
                                         empty_label="pending review", help_text="pending_review unless given")
    assignee = django_filters.CharFilter(method="filter_assignee", max_length=150,
                                         help_text=f"a reviewer's username, or {UNASSIGNED!r} for unassigned tasks")

    class Meta:
        model = SynthesizedTask
        fields = list(FILTER_NAMES)

    def filter_queryset(self, queryset):
        if not self.form.cleaned_data.get("status"):
            queryset = queryset.filter(status=SynthesizedTask.Status.PENDING_REVIEW)
        return super().filter_queryset(queryset)

    def filter_status(self, queryset, name, value):
        return queryset.filter(status=value)

    def filter_assignee(self, queryset, name, value):
        if value == UNASSIGNED:
            return queryset.filter(assigned_to__isnull=True)
        return queryset.filter(assigned_to__username=value)


def reviewer_choices() -> list[str]:
    """Usernames of the users who may be assigned a review (reviewers, admins, superusers)."""
    users = get_user_model().objects.filter(is_active=True)
    names = users.filter(groups__name__in=("reviewer", "admin")).values_list("username", flat=True)
    return sorted(set(names) | set(users.filter(is_superuser=True).values_list("username", flat=True)))
