"""The task page: plotly charts from the public files, DNA beside the seed's, rollout stats, versions, private parts."""

from __future__ import annotations

import json
import re
from importlib import import_module

import pytest
from django.apps import apps as django_apps

from sandmle_web.errors import ServiceError
from tasks_app.models import SynthesisRun, SynthesizedTask
from tasks_app.tasks import regenerate


def _figures(html: str) -> dict[str, dict]:
    return {match.group(1): json.loads(match.group(2)) for match in
            re.finditer(r'<script id="([^"]+)" type="application/json">(.*?)</script>', html, re.S)}


@pytest.fixture
def pending(stored_tasks):
    return next(task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW)


def test_charts_carry_the_public_data(client_for, pending):
    html = client_for("viewer").get(f"/tasks/{pending.task_id}/").content.decode()
    figures = _figures(html)
    target = pending.spec["domain"]["target_name"]
    label = figures["label-figure"]
    assert target in label["layout"]["title"]["text"]
    assert sum(label["data"][0]["y"]) == pending.spec["n_train"]  # every training row counted once
    features = [figure for name, figure in figures.items() if name.startswith("feature-figure-")]
    assert len(features) >= 4 and all(len(figure["data"]) == 2 for figure in features)  # train and test
    ladder = figures["ladder-figure"]
    assert set(ladder["data"][0]["y"]) == set(pending.ladder)
    assert {shape["x0"] for shape in ladder["layout"]["shapes"]} == {float(v) for v in pending.milestones.values()}
    assert 'src="/static/vendor/plotly.min.js"' in html


def test_dna_table_marks_what_synthesis_changed(client_for, pending):
    html = client_for("viewer").get(f"/tasks/{pending.task_id}/").content.decode()
    dna = html[html.index('id="dna"'):html.index('id="rollout-stats"')]
    assert "n features" in dna and 'class="diff-changed"' in dna  # distractor columns and noise move the DNA


def test_viewer_sees_no_rule_reviewer_sees_it_in_words(client_for, pending):
    from tasks_app.tasks import bundle_files

    rule = bundle_files.read_json(pending.bundle_dir, "private/rule.json")
    viewer = client_for("viewer").get(f"/tasks/{pending.task_id}/").content.decode()
    assert rule["description"][:40] not in viewer and '"edges"' not in viewer
    reviewer = client_for("reviewer").get(f"/tasks/{pending.task_id}/").content.decode()
    assert 'id="rule-words"' in reviewer


def test_rollout_stats_and_flag_on_task_and_queue(client_for, finished_batch):
    from tasks_app.tasks.rollout_stats import rollout_stats_by_task
    from training_app.models import Trajectory

    task = finished_batch.task_set.tasks.first()
    rows = list(Trajectory.objects.filter(task=task).values_list("milestone", "reward"))
    stats = rollout_stats_by_task(task_ids=[task.pk])[task.pk]
    assert stats.samples == len(rows) == 2
    assert stats.solved == sum(m in ("bronze", "silver", "gold") for m, _ in rows)
    assert stats.reward_spread == pytest.approx(max(r for _, r in rows) - min(r for _, r in rows))
    assert stats.flag == ("all solve" if stats.solved == 2 else "none solve" if stats.solved == 0 else "")
    html = client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
    assert f"{stats.samples} samples" in html
    assert ('id="rollout-flag"' in html) == bool(stats.flag)


def test_regenerate_makes_a_linked_version_with_a_diff(client_for, pending, users,
                                                       django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for("curator").post(f"/tasks/{pending.task_id}/regenerate/", {"rng": "4242"})
    run = SynthesisRun.objects.get(summary__regenerates=pending.task_id)
    assert response.status_code == 302 and response["Location"] == f"/synthesis/{run.id}/"
    assert regenerate.task_regenerate_execute(run_id=run.id, worker="test") is True
    new = SynthesizedTask.objects.get(run=run)
    assert new.rule_family == pending.rule_family and new.task_id != pending.task_id
    assert regenerate.previous_version(new) == pending and regenerate.version_number(new) == 2
    diff = regenerate.version_diff(pending, new, include_private=True)
    assert any(row["field"] == "spec.rng_seed" for row in diff)
    viewer_diff = regenerate.version_diff(pending, new, include_private=False)
    assert not any(row["field"].startswith("spec") for row in viewer_diff)
    page = client_for("viewer").get(f"/tasks/{new.task_id}/").content.decode()
    assert pending.task_id in page and 'id="version-diff"' in page and "spec.rule" not in page
    assert new.task_id in client_for("viewer").get(f"/tasks/{pending.task_id}/").content.decode()


def test_regenerate_by_api_and_no_viewer_learns_the_rule_family_from_the_run(api_for, client_for, pending,
                                                                            django_capture_on_commit_callbacks):
    """A regeneration keeps the old version's rule family; its run row is public, so the family must not be on it."""
    with django_capture_on_commit_callbacks(execute=False):
        assert api_for("viewer").post(f"/api/tasks/{pending.task_id}/regenerate/", {"rng": 5}).status_code == 403
        response = api_for("curator").post(f"/api/tasks/{pending.task_id}/regenerate/", {"rng": 5151}, format="json")
    assert response.status_code == 202, response.content
    run_id = response.json()["id"]
    assert response.json()["summary"]["regenerates"] == pending.task_id
    queued = [api_for(role).get(f"/api/synthesis-runs/{run_id}/").content.decode() for role in ("viewer", "curator")]
    queued += [client_for("viewer").get(path).content.decode() for path in (f"/synthesis/{run_id}/", "/synthesis/", "/")]
    assert regenerate.task_regenerate_execute(run_id=run_id, worker="test") is True
    new = SynthesizedTask.objects.get(run_id=run_id)
    assert new.rule_family == pending.rule_family  # the worker still found the family, from the previous version
    done = [api_for("viewer").get(path).content.decode() for path in (f"/api/synthesis-runs/{run_id}/",
                                                                      "/api/synthesis-runs/")]
    # Regenerations queued before the run row stopped naming the family stored it in the summary: a migration drops it.
    run = SynthesisRun.objects.get(id=run_id)
    SynthesisRun.objects.filter(id=run_id).update(summary=run.summary | {"rule_family": pending.rule_family})
    import_module("tasks_app.migrations.0008_regeneration_summary_without_rule_family") \
        .drop_rule_family_from_run_summaries(django_apps, None)
    run.refresh_from_db()
    assert "rule_family" not in run.summary and run.summary["regenerates"] == pending.task_id
    for body in queued + done:
        assert pending.rule_family not in body
    bad = api_for("curator").post(f"/api/tasks/{pending.task_id}/regenerate/", {"rng": "x"}, format="json")
    assert bad.status_code == 400 and "rng" in bad.json()
    again = api_for("curator").post(f"/api/tasks/{pending.task_id}/regenerate/", {"rng": 5151}, format="json")
    assert again.status_code == 400 and "rng" in again.json()  # the same rng made this version already


def test_regenerate_refuses_bad_rng_and_non_curators(client_for, pending):
    assert client_for("viewer").post(f"/tasks/{pending.task_id}/regenerate/", {"rng": "1"}).status_code == 403
    client_for("curator").post(f"/tasks/{pending.task_id}/regenerate/", {"rng": "-3"})
    assert not SynthesisRun.objects.filter(summary__regenerates=pending.task_id).exists()
    with pytest.raises(ServiceError):
        regenerate.task_regenerate(task=pending, user=None, rng=pending.spec["rng_seed"])


def test_title_badge_words_the_status_and_keeps_its_colour_class(client_for, pending):
    html = client_for("viewer").get(f"/tasks/{pending.task_id}/").content.decode()
    badge = re.search(r'<span class="state ([a-z_]+)" id="task-status" data-status="([a-z_]+)">([^<]+)</span>', html)
    assert badge is not None
    assert badge.group(1) == badge.group(2) == "pending_review"  # the class picks the colour in studio.css
    assert badge.group(3) == "pending review"
