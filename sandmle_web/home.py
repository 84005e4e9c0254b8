"""The studio's front page: counts and the latest jobs at a glance."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from tasks_app import selectors as task_selectors
from training_app import selectors as training_selectors


@login_required
def home(request):
    return render(
        request,
        "home.html",
        {"task_counts": task_selectors.task_counts(), "recent_batches": training_selectors.rollout_batch_list()[:5]},
    )
