"""Evaluation campaigns in the studio: field-level launch refusals, roles, a real campaign run through the Celery task
function, the transfer page with its charts and exports, a cell's episodes, a resumed campaign rerunning nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.page_figures import page_figure
from training_app.campaigns import services as campaign_services
from training_app.models import EvalCampaign

GOOD = {"task_set": "web-set", "policies": "baseline", "scaffolds": ["react"], "seeds": 1, "baseline": "",
        "feedback": "score", "max_turns": 3}


@pytest.mark.parametrize("field, value, words", [
    ("seeds", 0, "greater than or equal"),
    ("scaffolds", ["langchain"], "not one of the available choices"),
    ("policies", "   ", "This field is required"),
    ("baseline", "hf:/elsewhere", "is not one of the policies"),
    ("policies", "baseline\nbaseline", "listed twice"),
    ("scaffold_options", "react.dialect=klingon", "scaffold option 'dialect' of react: 'klingon' is not one of"),
    ("scaffold_options", "aide.steps=2", "'aide' is not one of the scaffolds run"),
    ("scaffold_options", "turns", "line 'turns': expected KEY=VALUE"),
])
def test_bad_launch_is_a_field_error(client_for, task_set, field, value, words):
    response = client_for("curator").post("/campaigns/", GOOD | {field: value})
    assert response.status_code == 400
    assert any(words in message for message in response.context["form"].errors.get(field, [])), \
        response.context["form"].errors
    assert not EvalCampaign.objects.exists()


def test_viewer_reads_but_cannot_launch(client_for, task_set):
    viewer = client_for("viewer")
    assert viewer.get("/campaigns/").status_code == 200
    assert viewer.post("/campaigns/", GOOD).status_code == 403
    assert not EvalCampaign.objects.exists()


def test_hf_policy_goes_to_the_gpu_queue(users, task_set, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        campaign = campaign_services.campaign_create(task_set=task_set, policies=["hf:models/x", "baseline"],
                                                     scaffolds=["react"], seeds=1, user=users["curator"])
    assert campaign.queue == "gpu" and len(callbacks) == 1


@pytest.fixture
def finished_campaign(client_for, task_set, django_capture_on_commit_callbacks):
    """A baseline campaign launched from the page and run by the worker's own task function, in-process."""
    from workers.evaluation import run_campaign

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for("curator").post("/campaigns/", GOOD | {
            "scaffolds": ["react", "aide"], "seeds": 1, "scaffold_options": "react.dialect=sandmle\naide.num_drafts=1"})
    assert response.status_code == 302 and len(callbacks) == 1
    campaign = EvalCampaign.objects.get()
    assert run_campaign(campaign.id) is True
    campaign.refresh_from_db()
    return campaign


def test_campaign_runs_shows_its_transfer_report_and_resumes_without_rerunning(
        client_for, finished_campaign, django_capture_on_commit_callbacks):
    campaign = finished_campaign
    assert campaign.state == "succeeded", campaign.error
    assert campaign.episodes.count() == campaign.total_episodes == 2 * campaign.task_set.tasks.count()
    assert campaign.report["complete"] and {c["scaffold"] for c in campaign.report["cells"]} == {"react", "aide"}
    viewer = client_for("viewer")
    page = viewer.get(f"/campaigns/{campaign.id}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="transfer-table"' in html and "vendor/plotly.min.js" in html and "±" in html
    assert 'data-figure="heatmap-figure"' in html and 'data-figure="bars-figure"' in html
    # Each column names the options its scaffold ran under.
    assert campaign.spec["scaffold_options"] == {"react": {"dialect": "sandmle"}, "aide": {"num_drafts": 1}}
    assert '<small class="muted scaffold-options">dialect=sandmle</small>' in html
    assert '<small class="muted scaffold-options">num_drafts=1</small>' in html
    assert campaign.episodes.filter(scaffold="react").first().record["trajectory"]["extra"]["scaffold_options"][
        "dialect"] == "sandmle"
    assert 'id="campaign-generation"' in html and "calls" in html  # the generation figures of its policies
    # Dense against sparse over the campaign's episodes, from each one's stored scheme totals.
    schemes = page_figure(html, "reward-schemes-figure")["data"]
    assert [trace["name"] for trace in schemes] == ["dense", "sparse"]
    assert [sum(trace["y"]) for trace in schemes] == [campaign.total_episodes] * 2
    # Each scaffold's mean reward split into its parts, which sum to it (real grades of real episodes).
    parts = {(row["policy"], row["scaffold"]): row["schemes"] for row in campaign.report["reward_parts"]}
    assert set(parts) == {("baseline", "react"), ("baseline", "aide")}
    for schemes_of_cell in parts.values():
        dense = schemes_of_cell["dense"]
        assert set(dense["components"]) == {"valid", "milestone", "format"} and dense["total"] > 0
        assert sum(dense["components"].values()) == pytest.approx(dense["total"])
    assert 'id="reward-parts-table"' in html and '<tr data-scaffold="aide" data-scheme="dense">' in html
    assert viewer.get(f"/campaigns/{campaign.id}/?metric=valid_rate").status_code == 200
    assert viewer.get(f"/campaigns/{campaign.id}/?metric=nonsense").status_code == 404
    cell = viewer.get(f"/campaigns/{campaign.id}/episodes/?policy=baseline&scaffold=aide")
    assert cell.status_code == 200 and cell.content.count(b"<tr>") == 1 + campaign.task_set.tasks.count()
    episode = campaign.episodes.filter(scaffold="aide").first()
    record = json.loads(viewer.get(f"/campaigns/{campaign.id}/episodes/{episode.id}.json").content)
    assert record["key"] == episode.key and "turns" in record["trajectory"]
    csv_text = viewer.get(f"/campaigns/{campaign.id}/report.csv").content.decode()
    assert "react" in csv_text and "aide" in csv_text
    report = json.loads(viewer.get(f"/campaigns/{campaign.id}/report.json").content)
    assert report["cells"] == campaign.report["cells"]
    assert viewer.get(f"/campaigns/{campaign.id}/report.exe").status_code == 404
    _check_episode_pages(campaign, viewer)
    _check_turn_counts(campaign, viewer, form=client_for("curator").get("/campaigns/").content.decode())

    # The same campaign (one real run serves both checks): a redelivered message does nothing, a requeued one
    # resumes and reruns no episode.
    assert campaign_services.campaign_execute(campaign_id=campaign.id, worker="again") is False
    keys = list(campaign.episodes.values_list("key", flat=True))
    # A worker lost mid-run: the sweep fails the row, a curator requeues it, the engine resumes from episodes.jsonl.
    EvalCampaign.objects.filter(id=campaign.id).update(state="failed", error="worker lost: no heartbeat")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert campaign_services.campaign_requeue(campaign_id=campaign.id) is True
    assert len(callbacks) == 1
    assert campaign_services.campaign_execute(campaign_id=campaign.id, worker="resumed") is True
    campaign.refresh_from_db()
    assert campaign.state == "succeeded", campaign.error
    assert sorted(campaign.episodes.values_list("key", flat=True)) == sorted(keys)
    lines = (campaign_services.Path(campaign.out_dir) / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == len(keys)  # the resumed run appended nothing


def test_cancel_of_a_queued_campaign(client_for, users, task_set, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        campaign = campaign_services.campaign_create(task_set=task_set, policies=["baseline"], scaffolds=["react"],
                                                     seeds=1, user=users["curator"])
    assert client_for("viewer").post(f"/campaigns/{campaign.id}/").status_code == 403
    campaign.refresh_from_db()
    assert campaign.state == "queued"
    client_for("curator").post(f"/campaigns/{campaign.id}/")
    campaign.refresh_from_db()
    assert campaign.state == "cancelled"
    assert campaign_services.campaign_execute(campaign_id=campaign.id) is False


def _check_episode_pages(campaign, viewer):
    """The list and the transfer cells open each episode turn by turn; the JSON record stays downloadable."""
    episode = campaign.episodes.get(scaffold="react", task_id=campaign.episodes.order_by("id").first().task_id)
    detail_url = f"/campaigns/{campaign.id}/episodes/{episode.id}/"
    assert detail_url.encode() in viewer.get(f"/campaigns/{campaign.id}/episodes/").content
    transfer = viewer.get(f"/campaigns/{campaign.id}/").content.decode()
    first_react = campaign.episodes.filter(scaffold="react").order_by("id").first()
    assert f'href="/campaigns/{campaign.id}/episodes/{first_react.id}/" class="cell-turns"' in transfer
    page = viewer.get(detail_url)
    assert page.status_code == 200
    html = page.content.decode()
    turns = episode.record["trajectory"]["turns"]
    assert html.count('<div class="turn') == len(turns) > 0 and "turn 1 · " in html
    assert 'class="ladder"' in html and "dense" in html  # the shared partial: ladder and rewards as on rollouts
    assert f"/campaigns/{campaign.id}/episodes/{episode.id}.json" in html
    download = viewer.get(f"/campaigns/{campaign.id}/episodes/{episode.id}.json")
    assert download["Content-Disposition"].startswith("attachment")
    assert json.loads(download.content)["key"] == episode.key
    other = EvalCampaign.objects.create(task_set=campaign.task_set, spec=campaign.spec)
    assert viewer.get(f"/campaigns/{other.id}/episodes/{episode.id}/").status_code == 404  # not another campaign's


def test_a_hostile_episode_shows_a_viewer_no_private_file_and_no_live_markup(
        client_for, users, task_set, settings, django_capture_on_commit_callbacks):
    """An agent that tries to read the answers and the hidden rule and prints markup: its page escapes the markup and
    holds no answer row and no rule, although the host paths of both sit in the agent's own code."""
    from tests.chat_server import ChatServer

    settings.SANDMLE_LLM_ALLOWED_HOSTS = ["127.0.0.1"]
    bundle = Path(task_set.tasks.order_by("task_id").first().bundle_dir)
    attack = (f"<think>look around</think><python>print('<script>alert(1)</script>')\n"
              f"for path in ['/private/answers.csv', '{bundle}/private/answers.csv', '{bundle}/private/rule.json']:\n"
              f"    try:\n        print(open(path).read())\n    except OSError as error:\n"
              f"        print('refused', type(error).__name__)\n"
              f"import shutil; shutil.copy('/public/sample_submission.csv', 'submission.csv')</python>")
    with ChatServer(reply_fn=lambda request: attack if len(request["messages"]) <= 2 else
                    "<think>done</think><answer>submission.csv</answer>") as server:
        with django_capture_on_commit_callbacks(execute=False):
            campaign = campaign_services.campaign_create(task_set=task_set, policies=[f"openai:m@{server.base_url}"],
                                                         scaffolds=["react"], seeds=1, max_turns=3,
                                                         user=users["curator"])
        assert campaign_services.campaign_execute(campaign_id=campaign.id, worker="test") is True
    episode = campaign.episodes.get(task_id=json.loads((bundle / "task.json").read_text())["task_id"])
    html = client_for("viewer").get(f"/campaigns/{campaign.id}/episodes/{episode.id}/").content.decode()
    assert "refused" in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)</script>" not in html
    answer_rows = (bundle / "private" / "answers.csv").read_text().splitlines()[1:]
    assert not [row for row in answer_rows if row.rsplit(",", 1)[0] in html]
    rule = json.loads((bundle / "private" / "rule.json").read_text())
    assert rule["description"] not in html and rule["family"] not in html


def test_two_campaigns_compared_cell_by_cell(client_for, finished_campaign):
    import copy

    report = copy.deepcopy(finished_campaign.report)
    first_cell = report["cells"][0]
    before = first_cell["metrics"]["valid_rate"]["mean"]
    first_cell["metrics"]["valid_rate"]["mean"] = before - 0.25
    report["cells"] = report["cells"][:1]  # the second campaign ran one cell only
    second = EvalCampaign.objects.create(name="second", task_set=finished_campaign.task_set,
                                         spec=finished_campaign.spec, report=report, state="succeeded")
    viewer = client_for("viewer")
    response = viewer.get(f"/campaigns/compare/?campaigns={finished_campaign.id}&campaigns={second.id}"
                          "&metric=valid_rate")
    assert response.status_code == 200
    rows = response.context["rows"]
    assert len(rows) == len(finished_campaign.report["cells"]) == 2
    assert rows[0]["entries"][1]["delta"] == pytest.approx(-0.25) and rows[1]["entries"][1] is None
    html = response.content.decode()
    assert "-0.250" in html and f'n={first_cell["n"]}' in html
    assert viewer.get(f"/campaigns/compare/?campaigns={second.id}&metric=nope").status_code == 400
    assert viewer.get("/campaigns/compare/?campaigns=x").status_code == 400
    assert 'form="compare-form"' in viewer.get("/campaigns/").content.decode()


def _check_turn_counts(campaign, viewer, *, form: str):
    """One count of turns, the unit the form's max turns bounds, on the form, the list, the episode and the metrics:
    an AIDE node is one turn though its reply and its review are two policy calls and three or more records."""
    from sandmle.evaluation.metrics import episode_turns, policy_calls

    assert "an AIDE or AIRA node (its review and re-asks are not turns)" in form
    episode = campaign.episodes.filter(scaffold="aide").order_by("id").first()
    trajectory = episode.record["trajectory"]
    assert 1 <= episode.n_turns == episode_turns(trajectory) <= GOOD["max_turns"]
    assert len(trajectory["turns"]) > policy_calls(trajectory) > episode.n_turns  # records and reviews are not turns
    rows = viewer.get(f"/campaigns/{campaign.id}/episodes/?policy=baseline&scaffold=aide").content.decode()
    assert f"<td>{episode.n_turns}</td><td><a href=\"/campaigns/{campaign.id}/episodes/{episode.id}/\">" in rows
    page = viewer.get(f"/campaigns/{campaign.id}/episodes/{episode.id}/").content.decode()
    assert (f"{episode.n_turns} of {GOOD['max_turns']} turns ({policy_calls(trajectory)} policy calls with reviews, "
            "repairs and re-asks)") in page
    cell = next(c for c in campaign.report["cells"] if c["scaffold"] == "aide")
    episodes = campaign.episodes.filter(scaffold="aide")
    assert cell["metrics"]["mean_turns"]["mean"] == pytest.approx(sum(e.n_turns for e in episodes) / len(episodes))
    summary = viewer.get(f"/campaigns/{campaign.id}/").content.decode()
    assert (f'<span id="campaign-stored">{campaign.total_episodes} of {campaign.total_episodes} episodes stored'
            f'</span> · at most {GOOD["max_turns"]} turns each') in summary
    assert campaign.progress_message == f"{campaign.total_episodes} of {campaign.total_episodes} episodes stored"


def test_metric_tabs_read_as_words_with_their_meaning(client_for, finished_campaign):
    """Issue 57: the tabs name each metric in words; the chosen one says what it measures."""
    client = client_for("viewer")
    html = client.get(f"/campaigns/{finished_campaign.id}/", {"metric": "human_rank"}).content.decode()
    tabs = html[html.index('class="metric-choice"'):html.index("</nav>", html.index('class="metric-choice"'))]
    assert ">HumanRank</a>" in tabs and ">Medal rate</a>" in tabs and ">human_rank<" not in tabs
    meaning = html[html.index('id="metric-meaning"'):]
    assert "the rank against the task&#x27;s reference leaderboard" in meaning[:400]
    compare = client.get("/campaigns/compare/", {"campaigns": [finished_campaign.id], "metric": "valid_rate"})
    assert ">Valid rate</option>" in compare.content.decode() and 'id="metric-meaning"' in compare.content.decode()
