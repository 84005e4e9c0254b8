"""What a reviewer reads on the review pages must not mislead (issue 48): the hidden rule as the nested rule it is,
no feature column silently left without a chart, the next task after a decision, a favicon, a seed's DNA by column."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from tasks_app.models import SynthesizedTask
from tasks_app.tasks import bundle_files, charts

NESTED_RULE = "if calendar_age <= 35:\n    if cold_start_share <= 14.7:\n        class <late>\n    otherwise:\n        class ok\notherwise:\n    class ok"


@pytest.fixture
def pending(stored_tasks):
    SynthesizedTask.objects.filter(pk__in=[task.pk for task in stored_tasks]).update(
        status=SynthesizedTask.Status.PENDING_REVIEW, assigned_to=None)
    return sorted((SynthesizedTask.objects.get(pk=task.pk) for task in stored_tasks),
                  key=lambda task: (task.created_at, task.task_id))


def test_hidden_rule_keeps_its_line_breaks_and_indentation(client_for, pending, monkeypatch):
    read_json = bundle_files.read_json

    def with_nested_rule(bundle_dir, name):
        data = read_json(bundle_dir, name)
        return data | {"description": NESTED_RULE} if name == "private/rule.json" else data

    monkeypatch.setattr(bundle_files, "read_json", with_nested_rule)
    page = client_for("reviewer").get(f"/tasks/{pending[0].task_id}/").content.decode()
    block = re.search(r'<pre id="rule-words"[^>]*>(.*?)</pre>', page, re.S)
    assert block and block.group(1) == html_lib.escape(NESTED_RULE, quote=True)  # every newline and space, escaped
    assert "<late>" not in page
    viewer = client_for("viewer").get(f"/tasks/{pending[0].task_id}/").content.decode()
    assert 'id="rule-words"' not in viewer and "cold_start_share" not in viewer


def test_every_feature_column_is_charted_and_the_count_says_how_many_up_front(client_for, pending, monkeypatch):
    task = pending[0]
    train = charts.read_public_frame(task.bundle_dir, "train.csv")
    columns = charts.feature_columns(train, target=task.spec["domain"]["target_name"])
    assert len(columns) >= 3
    monkeypatch.setattr(charts, "MAX_FEATURE_CHARTS", 2)
    viewer = client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
    count = re.search(r'id="feature-chart-count">(.*?)</p>', viewer, re.S).group(1)
    assert f"2 of {len(columns)} columns charted" in count
    folded = viewer[viewer.index('id="more-feature-charts"'):viewer.index('id="dna"')]
    shown = viewer[viewer.index('id="feature-chart-count"'):viewer.index('id="more-feature-charts"')]
    shown_ids = re.findall(r'data-figure="(feature-figure-\d+)"', shown)
    folded_ids = re.findall(r'data-figure="(feature-figure-\d+)"', folded)
    assert len(shown_ids) == 2 and len(folded_ids) == len(columns) - 2  # no column lost
    assert shown_ids == ["feature-figure-1", "feature-figure-2"]  # others see the file's order, which tells nothing

    rule_columns = [name for name in task.spec["rule"]["features"] if name in columns]
    assert rule_columns
    reviewer = client_for("reviewer").get(f"/tasks/{task.task_id}/").content.decode()
    shown = reviewer[reviewer.index('id="feature-chart-count"'):reviewer.index('id="more-feature-charts"')]
    first = [columns[int(number) - 1] for number in re.findall(r'data-figure="feature-figure-(\d+)"', shown)]
    assert first[:len(rule_columns[:2])] == rule_columns[:2]  # the hidden rule's columns lead, for reviewers only
    assert "the hidden rule's columns first" in shown and "the hidden rule" not in viewer[
        viewer.index('id="feature-chart-count"'):viewer.index('id="more-feature-charts"')]


def test_feature_charts_split_keeps_every_chart():
    charts_in = [{"name": f"c{index}"} for index in range(30)]
    shown, rest = charts.feature_charts_split(charts_in, first=["c29", "c7"])
    assert len(shown) == charts.MAX_FEATURE_CHARTS and [c["name"] for c in shown[:3]] == ["c29", "c7", "c0"]
    assert sorted(c["name"] for c in shown + rest) == sorted(c["name"] for c in charts_in)


def test_a_decision_sends_the_reviewer_to_the_next_task_then_the_queue(client_for, pending):
    first, second = pending[:2]
    client = client_for("reviewer")
    response = client.post(f"/tasks/{first.task_id}/", {"verdict": "approve", "body": "fine"})
    assert response.status_code == 302 and response.url == f"/tasks/{second.task_id}/"
    said = [str(message) for message in get_messages(response.wsgi_request)]
    assert said == [f"Approved {first.task_id}. Next in your queue: {second.task_id}."]
    response = client.post(reverse("task-review-action", args=[second.task_id, "decide"]),
                           {"verdict": "reject", "reason": "too easy"})  # the panel's other route does the same
    assert response.status_code == 302 and response.url == "/review/"
    assert [str(m) for m in get_messages(response.wsgi_request)][-1] == \
        f"Rejected {second.task_id}. Your review queue is empty."  # (the first message was never shown: no redirect followed)
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.status, second.status) == ("approved", "rejected")


def test_next_task_skips_what_the_reviewer_approved_and_others_claimed(client_for, pending, users, settings):
    from accounts.roles import Role
    from accounts.services import user_create

    settings.SANDMLE_REVIEW_MIN_APPROVALS = 2
    first, second = pending[:2]
    client = client_for("reviewer")
    response = client.post(f"/tasks/{first.task_id}/", {"verdict": "approve", "body": "fine"})
    assert response.url == f"/tasks/{second.task_id}/"
    assert "(1 of 2 approvals: it waits for another reviewer)" in str(list(get_messages(response.wsgi_request))[0])
    other = user_create(username="reviewer-c", password="pw", role=Role.REVIEWER)
    SynthesizedTask.objects.filter(pk=second.pk).update(assigned_to=other)
    response = client.post(f"/tasks/{first.task_id}/", {"verdict": "comment", "body": "noted"})
    assert response.url == f"/tasks/{first.task_id}/"  # a comment is no decision: the reviewer stays
    from tasks_app.review.selectors import review_next_task

    assert review_next_task(user=users["reviewer"]) is None  # approved by them, or claimed by another
    assert review_next_task(user=other) == second


def test_request_changes_keeps_the_reviewer_on_the_task(client_for, pending):
    task = pending[0]
    response = client_for("reviewer").post(f"/tasks/{task.task_id}/", {"verdict": "request_changes", "body": "typo"})
    assert response.status_code == 302 and response.url.startswith(f"/tasks/{task.task_id}/")


def test_favicon_is_linked_and_answered(client_for, pending):
    from django.contrib.staticfiles import finders

    page = client_for("reviewer").get("/review/").content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', page).group(1)
    response = client_for("reviewer").get("/favicon.ico")
    assert response.status_code == 302 and response.url == icon
    assert finders.find("favicon.svg")
    client = client_for("viewer")
    client.logout()
    assert client.get("/favicon.ico").status_code == 302  # asked for before anyone logs in, too


def test_seed_dna_names_each_feature_column_and_rounds_floats(client_for, stored_tasks):
    page = client_for("viewer").get("/seeds/iris/").content.decode()
    table = page[page.index('id="dna-feature-table"'):page.index("</table>", page.index('id="dna-feature-table"'))]
    for column in ("sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"):
        assert f"<code>{column}</code>" in table
    dna_json = re.search(r'<pre id="dna-json">(.*?)</pre>', page, re.S).group(1)
    digits = [len(number.lstrip("-0.").replace(".", "").rstrip("0")) for number in re.findall(r"-?\d+\.\d+", dna_json)]
    assert digits and max(digits) <= 3  # three significant digits at most


def test_task_page_dna_names_the_columns_of_seed_and_task(client_for, pending):
    task = pending[0]
    page = client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
    dna = page[page.index('id="dna"'):page.index('id="rollout-stats"')]
    modes = re.search(r"<td>modes per numeric feature</td><td>(.*?)</td><td>(.*?)</td>", dna)
    assert "sepal length (cm) " in modes.group(1) and "petal width (cm) " in modes.group(1)
    train = charts.read_public_frame(task.bundle_dir, "train.csv")
    numeric = [name for name in charts.feature_columns(train, target=task.spec["domain"]["target_name"])
               if train[name].dtype.kind == "f"]
    assert numeric and all(f"{name} " in modes.group(2) for name in numeric[:2])
