"""Why GRPO does (not) learn, in the studio: the run page's diagnosis curves and zero-spread warning, a step's groups
with each sample's reward and advantage, the compare view of runs differing in the reward scheme, and the launch
form's errors (all at once, next to their fields) and checkpoint check."""

from __future__ import annotations

import json


from tests.checkpoint_dirs import checkpoint_dir
from tests.stored_runs import two_runs  # noqa: F401 (a fixture)
from training_app.shared.model_roots import outside_message
from training_app.models import TrainingRun


def test_run_page_charts_the_diagnosis_and_says_when_no_step_had_signal(client_for, two_runs):
    sparse, dense = two_runs
    viewer = client_for("viewer")
    html = viewer.get(f"/training/{sparse.id}/").content.decode()
    assert 'id="zero-spread-notice"' in html and "No learning signal at every step" in html
    for name in ("signal", "grad_norm", "tokens", "episodes", "terminations", "timing"):
        assert f'data-figure="{name}-figure"' in html, name
    assert 'data-figure="generation-figure"' not in html  # the batching keys are drawn only when lines carry them
    assert f"/training/{sparse.id}/steps/1/" in html
    dense_html = viewer.get(f"/training/{dense.id}/").content.decode()
    assert 'id="zero-spread-notice"' not in dense_html and 'data-figure="generation-figure"' in dense_html
    figures = viewer.get(f"/training/{dense.id}/metrics.json").json()["figures"]
    assert figures["reward"]["layout"]["template"]["layout"]["plot_bgcolor"] == "#ffffff"  # one white template (studio/charts.py)


def test_step_page_shows_each_samples_reward_and_advantage_within_its_group(client_for, two_runs):
    sparse, dense = two_runs
    viewer = client_for("viewer")
    response = viewer.get(f"/training/{dense.id}/steps/1/")
    assert response.status_code == 200
    first, second = response.context["groups"]
    # TRL: (r - mean) / (std + 1e-4), std over the group's unmasked rewards (Bessel's correction, as torch.std).
    assert [round(s["advantage"], 3) for s in first["samples"]] == [-0.707, 0.707] and not first["flat"]
    # A timeout is masked from the loss (no advantage) but, as in the reference trainer, counts in its group's baseline.
    assert second["samples"][0]["reward"] == 0.5 and second["samples"][0]["advantage"] is None
    assert second["samples"][0]["masked"] == "time_budget"
    assert second["flat"]
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html  # the agent's task id is escaped
    flat = viewer.get(f"/training/{sparse.id}/steps/1/")
    assert all(s["advantage"] == 0 for s in flat.context["groups"][0]["samples"])
    assert "had no reward spread" in flat.content.decode()
    assert viewer.get(f"/training/{dense.id}/steps/9/").status_code == 404


def test_step_page_skips_lines_that_are_not_records(client_for, two_runs):
    _, dense = two_runs
    path = dense.metrics.get(step=1).metrics["trajectories"]
    with open(path, "a") as out:
        out.write("not json\n[1, 2]\n")
    response = client_for("viewer").get(f"/training/{dense.id}/steps/1/")
    assert response.status_code == 200 and len(response.context["groups"]) == 2


def test_compare_overlays_both_runs_and_lists_the_one_setting_that_differs(client_for, two_runs):
    sparse, dense = two_runs
    response = client_for("viewer").get(f"/training/compare/?runs={sparse.id}&runs={dense.id}")
    assert response.status_code == 200
    differences = dict(response.context["differences"])
    assert differences["reward"] == ["sparse", "dense"] and "name" not in differences
    assert "group_size" not in differences  # the same in both: not listed
    html = response.content.decode()
    reward = json.loads(html.split('id="reward-figure" type="application/json">')[1].split("</script>")[0])
    assert [trace["name"] for trace in reward["data"]] == [f"#{sparse.id} sparse", f"#{dense.id} dense"]
    assert client_for("viewer").get("/training/compare/?runs=x").status_code == 400
    one = client_for("viewer").get(f"/training/compare/?runs={dense.id}&runs=99999").content.decode()
    assert "No run 99999" in one and "Tick two or more runs" in one


def test_launch_form_shows_every_error_next_to_its_field_with_a_summary(client_for, task_set, tmp_path):
    body = {"task_set": task_set.name, "kind": "grpo", "model": "hf:/nonexistent/ckpt", "steps": 0,
            "learning_rate": -1, "name": "kept name"}
    response = client_for("curator").post("/training/", body)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert {"model", "steps", "learning_rate"} <= set(errors), errors
    assert errors["model"] == [outside_message()]  # the same words whatever lies outside the roots
    html = response.content.decode()
    summary = html.split('id="form-error-summary"')[1].split("</div>")[0]
    for field in ("model", "steps", "learning_rate"):
        assert f'href="#id_{field}"' in summary and f'id="id_{field}-error"' in html
    assert 'value="kept name"' in html and 'value="hf:/nonexistent/ckpt"' in html  # inputs kept
    for key in ("dynamic_sampling", "task_sampling", "kl_coef", "scaffold", "temperature", "feedback",
                "eval_task_set", "use_vllm"):
        assert f'name="{key}"' in html, key
    assert ">MLE-Agent<" in html and ">GRPO<" in html
    assert "<details class=\"form-group\">" in html  # the advanced groups start folded
    assert not TrainingRun.objects.exists()


def test_api_refuses_a_missing_checkpoint_by_field_and_takes_every_engine_setting(api_for, task_set, settings,
                                                                                  django_capture_on_commit_callbacks):
    api = api_for("curator")
    body = {"task_set": task_set.name, "model": "hf:/nonexistent/ckpt", "steps": 1}
    refused = api.post("/api/training-runs/", body, format="json")
    assert refused.status_code == 400 and refused.json()["model"] == [outside_message()]
    missing = api.post("/api/training-runs/", body | {"model": "hf:models/missing"}, format="json")
    assert missing.status_code == 400 and "no such directory" in missing.json()["model"][0]  # inside the roots
    with django_capture_on_commit_callbacks(execute=False):
        made = api.post("/api/training-runs/", body | {"model": f"hf:{checkpoint_dir(settings.DATA_DIR)}", "kl_coef": 0.1,
                                                       "dynamic_sampling": True, "task_sampling": "learnability",
                                                       "scaffold": "aide", "eval_task_set": task_set.name},
                        format="json")
    assert made.status_code == 201, made.json()
    config = made.json()["config"]
    assert config["kl_coef"] == 0.1 and config["dynamic_sampling"] and config["task_sampling"] == "learnability"
    assert config["scaffold"] == "aide" and config["eval_tasks"] and not config["model"].startswith("hf:")


def test_step_samples_link_to_their_episode_and_show_each_reward_part(client_for, two_runs, task_set):
    _, dense = two_runs
    path = dense.metrics.get(step=1).metrics["trajectories"]
    task_id = task_set.tasks.order_by("task_id").first().task_id
    own = {"task_id": task_id, "group_id": "g3", "sample_index": 0, "termination": "submitted", "scaffold": "react",
           "rewards": {"dense": {"total": 0.9, "components": {"valid": 0.2, "milestone": 0.7}}},
           "grade": {"score": 0.97, "valid_submission": True},
           "turns": [{"role": "assistant", "text": "fit <b>trees</b>"}]}
    with open(path, "a") as out:
        out.write(json.dumps(own) + "\n")
    viewer = client_for("viewer")
    response = viewer.get(f"/training/{dense.id}/steps/1/")
    html = response.content.decode()
    first = response.context["groups"][0]["samples"][0]
    assert first["components"] == {"valid": 0.2, "milestone": 0.0} and 'class="reward-parts">valid <' in html
    for line in range(5):
        assert f'href="/training/{dense.id}/steps/1/samples/{line}/"' in html
    # Only the run's own task ids link to their task; an agent-written one stays escaped text.
    assert f'href="/tasks/{task_id}/"' in html and "&lt;script&gt;" in html
    sample = viewer.get(f"/training/{dense.id}/steps/1/samples/4/")
    page = sample.content.decode()
    assert sample.status_code == 200 and f'href="/tasks/{task_id}/"' in page and "line 5 of" in page
    assert "fit &lt;b&gt;trees&lt;/b&gt;" in page and "<b>trees</b>" not in page
    assert viewer.get(f"/training/{dense.id}/steps/1/samples/2/").status_code == 200  # a foreign id: plain text
    assert viewer.get(f"/training/{dense.id}/steps/1/samples/5/").status_code == 404
    assert viewer.get(f"/training/{dense.id}/steps/7/samples/0/").status_code == 404
