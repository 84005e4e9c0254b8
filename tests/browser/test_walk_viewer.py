"""Walk: a viewer follows every link the studio offers (navigation, task, trajectory, campaign and job pages) and
finds no hidden rule, rule parameter, answer row or reviewers-only comment in any page or download."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest

from tests.hidden_values import hidden_values

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Where a viewer's walk stops: signing out, the admin site (it refuses viewers anyway) and the API's own docs.
NOT_FOLLOWED = re.compile(r"^/(logout|admin|static|api/(docs|redoc|schema))/")
REVIEWERS_ONLY_NOTE = "canary-reviewers-only-4b1e"
MAX_PAGES = 120


@pytest.fixture
def studio_with_history(users, task_set, finished_batch, django_capture_on_commit_callbacks, settings):
    """Tasks, a task set, a finished rollout batch, a finished campaign and a reviewers-only comment."""
    from tasks_app.models import SynthesizedTask
    from tasks_app.review.services import task_comment_add
    from training_app.campaigns import services as campaign_services

    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1
    with django_capture_on_commit_callbacks(execute=False):
        campaign = campaign_services.campaign_create(task_set=task_set, policies=["baseline"], scaffolds=["react"],
                                                     seeds=1, user=users["curator"], name="viewer-walk")
    assert campaign_services.campaign_execute(campaign_id=campaign.id, worker="test") is True
    tasks = list(SynthesizedTask.objects.all())
    task_comment_add(task=tasks[0], user=users["reviewer"], body=f"Rule check {REVIEWERS_ONLY_NOTE}",
                     visibility="reviewers")
    return tasks


def _page_kind(path: str) -> str:
    """One screenshot per kind of page: ids and numbers folded, so /trajectories/7/ and /trajectories/8/ are one."""
    path = re.sub(r"/tasks/[^/]+/", "/tasks/ID/", path)
    return re.sub(r"\d+", "N", path).strip("/").replace("/", "_") or "dashboard"


def test_viewer_finds_no_hidden_rule_anywhere(login_as, live_server, studio_with_history, shot):
    secrets = [value for task in studio_with_history for value in hidden_values(task)] + [REVIEWERS_ONLY_NOTE]
    page = login_as("viewer")
    origin = live_server.url
    queue, seen, shot_kinds, visited = ["/"], set(), set(), []
    while queue and len(visited) < MAX_PAGES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        response = page.request.get(origin + path)
        body = response.text()
        leaked = [secret for secret in secrets if secret in body]
        assert not leaked, f"{path} shows a viewer {leaked}"
        visited.append((path, response.status))
        if "text/html" not in response.headers.get("content-type", ""):
            continue  # a download (CSV, JSONL, JSON report): checked above, nothing to follow
        page.goto(origin + path)
        if page.locator(".js-plotly-plot").count():
            page.wait_for_selector(".js-plotly-plot .main-svg")
        kind = _page_kind(urlsplit(path).path)
        if kind not in shot_kinds:
            shot_kinds.add(kind)
            shot(page, kind)
        for href in page.eval_on_selector_all("a[href]", "links => links.map(link => link.getAttribute('href'))"):
            target = urlsplit(urljoin(origin + path, href))
            if target.netloc != urlsplit(origin).netloc or NOT_FOLLOWED.match(target.path):
                continue
            link = target.path + (f"?{target.query}" if target.query else "")
            if link not in seen:
                queue.append(link)
    paths = [path for path, _ in visited]
    # The walk reached every step of the flow and the pages hanging off them.
    for expected in ("/seeds/", "/synthesis/", "/tasks/", "/task-sets/", "/rollouts/", "/campaigns/", "/training/"):
        assert expected in paths, f"{expected} not reachable: {paths}"
    for prefix in ("/tasks/", "/trajectories/", "/campaigns/", "/rollouts/", "/seeds/"):
        assert any(path.startswith(prefix) and path != prefix for path in paths), f"no {prefix}… page visited"
    assert all(status < 500 for _, status in visited), [v for v in visited if v[1] >= 500]
    assert len(shot_kinds) >= 12
