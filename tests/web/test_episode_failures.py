"""A job whose every episode failed is not "succeeded": rollout batches, campaigns and training runs on a machine
without bubblewrap fail with that reason on their pages, and a partly failing batch shows the share and the reason.

The failures are real: PATH holds no bwrap, so the real sandbox refuses each episode as it would on a fresh machine.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from training_app.campaigns import services as campaign_services
from training_app.models import EvalCampaign, TrainingRun
from training_app.rollouts import services

NO_BWRAP_REASON = "SandboxUnavailable: bubblewrap (bwrap) is missing"


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A PATH with no bwrap on it, as on a fresh machine before `apt-get install bubblewrap`."""
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("SANDMLE_UNSAFE_PLAIN_SUBPROCESS", raising=False)


def test_batch_whose_every_episode_failed_fails_with_the_reason(client_for, users, task_set, no_bwrap,
                                                                django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=1,
                                              user=users["curator"])
    assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    episodes = task_set.tasks.count()
    assert batch.state == "failed"
    assert batch.error.startswith(f"every episode failed ({episodes} of {episodes}): {NO_BWRAP_REASON}")
    assert batch.summary["failures"]["failed"] == episodes and batch.summary["medal_rate"] == 0
    html = client_for("viewer").get(f"/rollouts/{batch.id}/").content.decode()
    assert "every episode failed" in html and "bubblewrap (bwrap) is missing" in html


def test_partly_failing_batch_succeeds_and_shows_the_share_and_the_reason(client_for, users, task_set, tmp_path,
                                                                          django_capture_on_commit_callbacks):
    broken = task_set.tasks.order_by("task_id").first()
    copy = tmp_path / "broken-bundle"
    shutil.copytree(broken.bundle_dir, copy)
    shutil.rmtree(copy / "public")  # this task's episodes cannot start; the other task's run as usual
    type(broken).objects.filter(id=broken.id).update(bundle_dir=str(copy))
    with django_capture_on_commit_callbacks(execute=False):
        batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=1,
                                              user=users["curator"])
    assert services.rollout_batch_execute(batch_id=batch.id, worker="test") is True
    batch.refresh_from_db()
    failures = batch.summary["failures"]
    assert batch.state == "succeeded" and not batch.error
    assert failures["failed"] == 1 and failures["episodes"] == 2 and failures["share"] == 0.5
    assert failures["commonest_reason"].startswith("FileNotFoundError: public dir not found")
    viewer = client_for("viewer")
    html = viewer.get(f"/rollouts/{batch.id}/").content.decode()
    assert 'id="episode-failures"' in html and "1 of 2 episodes failed (50%)" in html
    assert "public dir not found" in html
    assert "50% of episodes failed" in viewer.get("/rollouts/").content.decode()


def test_campaign_whose_every_episode_failed_fails_with_the_reason(client_for, users, task_set, no_bwrap,
                                                                   django_capture_on_commit_callbacks):
    from workers.evaluation import run_campaign

    with django_capture_on_commit_callbacks(execute=False):
        campaign = campaign_services.campaign_create(task_set=task_set, policies=["baseline"], scaffolds=["react"],
                                                     seeds=1, user=users["curator"])
    assert run_campaign(campaign.id) is True
    campaign = EvalCampaign.objects.get(id=campaign.id)
    assert campaign.state == "failed" and NO_BWRAP_REASON in campaign.error
    assert campaign.error.startswith("every episode failed")
    html = client_for("viewer").get(f"/campaigns/{campaign.id}/").content.decode()
    assert "every episode failed" in html and "bubblewrap (bwrap) is missing" in html


@pytest.mark.torch
def test_training_run_whose_every_episode_failed_fails_with_the_reason(client_for, users, task_set, tmp_path,
                                                                       no_bwrap, django_capture_on_commit_callbacks):
    pytest.importorskip("torch").set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from training_app.runs import services as training_services
    from workers.training import run_training

    model = build_tiny_checkpoint(Path(settings.DATA_DIR) / "models" / tmp_path.name)  # under the model roots
    with django_capture_on_commit_callbacks(execute=False):
        run = training_services.training_run_create(task_set=task_set, model=str(model), steps=2, group_size=2,
                                                    tasks_per_step=1, max_turns=1, max_tokens=8,
                                                    user=users["curator"])
    assert run_training(run.id) is True
    run = TrainingRun.objects.get(id=run.id)
    assert run.state == "failed"
    assert run.error.startswith(f"every episode failed (2 of 2): {NO_BWRAP_REASON}")
    assert not run.metrics.exists()  # stopped at the first step: nothing was trained on
    html = client_for("viewer").get(f"/training/{run.id}/").content.decode()
    assert "every episode failed (2 of 2)" in html and "bubblewrap (bwrap) is missing" in html
