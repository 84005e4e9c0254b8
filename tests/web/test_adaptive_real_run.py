"""An adaptive GRPO run launched from the training form and run by the worker's task function, with real successor
synthesis and the real reward-hack audit beside training (issue 56): the successor the controller asks for is made,
audited, accepted into the run, stored as a task of the studio with its lineage, and shown on the run page.

The trainer's step callback waits (once) for the first successor to be made, as tests/engine/test_rl_adaptive.py's
does: a step never waits for synthesis by design, so without it the run could end before its successor is ready."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.web.test_training_pages import GOOD

pytestmark = [pytest.mark.torch, pytest.mark.django_db]


def test_an_adaptive_run_from_the_form_takes_a_real_successor(client_for, task_set, settings, tmp_path, monkeypatch,
                                                              django_capture_on_commit_callbacks):
    pytest.importorskip("torch").set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import sandmle.rl.grpo as grpo
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from tasks_app.models import SynthesizedTask
    from training_app.models import TrainingRun
    from workers.training import run_training

    fit = TABULAR_REPLY_MENU[0]  # only the fitted program: success measures the task, not the draw
    model = build_tiny_checkpoint(Path(settings.DATA_DIR) / "models" / tmp_path.name,
                                  reply_menu=[fit, fit.replace("<think>Fit", "<think>Train", 1)])
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for("curator").post("/training/", GOOD | {
            "model": str(model), "name": "adaptive", "steps": 5, "save_every": 5, "environments": "adaptive",
            "frontier_evidence": 1, "max_tokens": 12, "learning_rate": 0.0})
    assert response.status_code == 302, response.context["form"].errors
    run = TrainingRun.objects.get()
    assert run.config["environments"] == "adaptive" and run.config["frontier_evidence"] == 1

    made = Path(run.output_dir) / "environments" / "made"
    real_train = grpo.train_grpo

    def waiting_train(config, *, on_step=None, **kwargs):
        def step(line):
            if line["step"] == 2:  # the first successor was asked for after step 1
                deadline = time.monotonic() + 300
                while not list(made.glob("*.json")):
                    assert time.monotonic() < deadline, "no successor made in time"
                    time.sleep(0.5)
            on_step(line)
        return real_train(config, on_step=step, **kwargs)

    monkeypatch.setattr(grpo, "train_grpo", waiting_train)
    assert run_training(run.id) is True
    run.refresh_from_db()
    assert run.state == "succeeded", run.error
    last = run.metrics.order_by("step").last().metrics
    assert last["successors_made"] >= 1 and last["successors_accepted"] >= 1, last
    successor = SynthesizedTask.objects.exclude(task_id__in=task_set.tasks.values_list("task_id", flat=True)).first()
    assert successor is not None and successor.bundle_dir.startswith(run.output_dir)
    page = client_for("viewer").get(f"/training/{run.id}/").content.decode()
    assert successor.task_id in page and 'id="lineage-curve"' in page
    task_page = client_for("viewer").get(f"/tasks/{successor.task_id}/").content.decode()
    assert "Lineage" in task_page and "level" in task_page
