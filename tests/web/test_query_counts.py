"""Every list page and API list runs the same number of queries for 3 rows as for 30: no N+1 anywhere."""

from __future__ import annotations

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

_serial = itertools.count()


class Rows:
    """Rows of every kind a list shows, grown in steps; all of one seed, one task set, one batch, one campaign."""

    def __init__(self, users):
        from sandmle_web.jobs import JobState
        from tasks_app.models import Seed, SynthesisRun, TaskSet
        from training_app.models import EvalCampaign, RolloutBatch

        self.users = users
        self.seed = Seed.objects.create(name="qc-seed", source="upload", target="y", task_type="multiclass",
                                        metric="accuracy", modality="tabular", n_rows=150, n_features=4)
        self.run = SynthesisRun.objects.create(seed=self.seed, count=30, state=JobState.SUCCEEDED,
                                               created_by=users["curator"])
        self.task_set = TaskSet.objects.create(name="qc-set", created_by=users["curator"])
        self.batch = RolloutBatch.objects.create(task_set=self.task_set, scaffold="react", policy="baseline",
                                                 samples=2, state=JobState.SUCCEEDED, created_by=users["curator"],
                                                 summary={"valid_rate": 1.0, "medal_rate": 0.5})
        self.campaign = EvalCampaign.objects.create(task_set=self.task_set, state=JobState.RUNNING,
                                                    spec={"policies": ["baseline"], "scaffolds": ["react"], "seeds": 1},
                                                    created_by=users["curator"], cancel_requested=True,
                                                    cancel_requested_by=users["reviewer"])
        self.count = 0

    def grow_to(self, total: int) -> None:
        """Add rows of every kind up to `total` each, in a few bulk inserts (the test is about reads)."""
        from sandmle_web.jobs import JobState
        from tasks_app.models import ReviewComment, Seed, SynthesisRun, SynthesizedTask, TaskSet
        from training_app.models import CampaignEpisode, EvalCampaign, RolloutBatch, TrainingRun, Trajectory

        numbers = [next(_serial) for _ in range(total - self.count)]
        self.count = total
        curator, reviewer = self.users["curator"], self.users["reviewer"]
        seeds = Seed.objects.bulk_create([
            Seed(name=f"qc-seed-{n}", source="upload", target="y", task_type="binary", metric="auc",
                 modality="tabular", n_rows=100, n_features=3, created_by=curator) for n in numbers])
        SynthesisRun.objects.bulk_create([SynthesisRun(seed=seed, count=1, created_by=curator, state=JobState.RUNNING)
                                          for seed in seeds])
        tasks = SynthesizedTask.objects.bulk_create([
            SynthesizedTask(task_id=f"qc-task-{n}", run=self.run, seed=self.seed, title=f"Task {n}",
                            status=("pending_review", "approved")[n % 2], domain_id="mine_ventilation", rule_family="piecewise_bands",
                            modality="tabular", metric="accuracy", milestones={"gold": 0.9},
                            spec={"rows": list(range(50))}, log=[{"stage": "dna"}] * 5, assigned_to=reviewer,
                            reviewed_by=reviewer if n % 2 else None) for n in numbers])
        self.task_set.tasks.add(*tasks)
        sets = TaskSet.objects.bulk_create([TaskSet(name=f"qc-set-{n}", created_by=curator) for n in numbers])
        TaskSet.tasks.through.objects.bulk_create([TaskSet.tasks.through(taskset=task_set, synthesizedtask=task)
                                                    for task_set, task in zip(sets, tasks)])
        ReviewComment.objects.bulk_create([ReviewComment(task=task, author=reviewer, body="fine", verdict="approved")
                                           for task in tasks])
        Trajectory.objects.bulk_create([
            Trajectory(batch=self.batch, task=task, sample_index=sample, termination="submitted", valid_submission=True,
                       milestone=("bronze", "")[sample], reward=0.5, record={"turns": [{"code": "print(1)"}] * 3})
            for task in tasks for sample in range(2)])
        RolloutBatch.objects.bulk_create([
            RolloutBatch(task_set=self.task_set, scaffold="aide", policy="baseline", created_by=curator,
                         cancel_requested_by=reviewer, summary={"valid_rate": 0.5}) for _ in numbers])
        TrainingRun.objects.bulk_create([
            TrainingRun(task_set=self.task_set, config={"model": "tiny", "steps": 3}, created_by=curator,
                        state=JobState.RUNNING, result={"steps_done": 1}) for _ in numbers])
        EvalCampaign.objects.bulk_create([
            EvalCampaign(task_set=self.task_set, spec={"policies": ["baseline"], "scaffolds": ["aide"]},
                         created_by=curator, report={"cells": []}) for _ in numbers])
        CampaignEpisode.objects.bulk_create([
            CampaignEpisode(campaign=self.campaign, key=f"baseline|react|{task.task_id}|0", policy="baseline",
                            scaffold="react", task_id=task.task_id, seed=0, n_turns=3, record={"turns": []})
            for task in tasks])


@pytest.fixture
def rows(users):
    return Rows(users)


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(captured)


PAGES = [
    ("viewer", "/"), ("viewer", "/seeds/"), ("viewer", "/synthesis/"), ("viewer", "/synthesis/{run}/"),
    ("viewer", "/tasks/"), ("reviewer", "/tasks/"), ("viewer", "/tasks/?status=approved&page=1"),
    ("reviewer", "/review/"), ("viewer", "/task-sets/"), ("curator", "/task-sets/"), ("viewer", "/rollouts/"),
    ("curator", "/rollouts/"), ("viewer", "/rollouts/{batch}/"), ("viewer", "/training/"), ("viewer", "/campaigns/"),
    ("viewer", "/campaigns/{campaign}/episodes/"), ("viewer", "/campaigns/{campaign}/episodes/?scaffold=react"),
    ("viewer", "/api/tasks/"), ("reviewer", "/api/tasks/"), ("viewer", "/api/synthesis-runs/"),
    ("viewer", "/api/seeds/"), ("viewer", "/api/rollout-batches/"),
]


@pytest.mark.parametrize("role,url", PAGES)
def test_same_query_count_at_3_and_30_rows(client_for, api_for, rows, role, url):
    url = url.format(run=rows.run.id, batch=rows.batch.id, campaign=rows.campaign.id)
    client = api_for(role) if url.startswith("/api/") else client_for(role)
    rows.grow_to(3)
    _queries(client, url)  # warm: sessions, content types
    few = _queries(client, url)
    rows.grow_to(30)
    many = _queries(client, url)
    assert few == many, f"{url}: {few} queries for 3 rows, {many} for 30"
