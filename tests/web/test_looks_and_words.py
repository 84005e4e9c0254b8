"""How pages word and round things (issue 27, item 7): the field's names, one status spelling, scores rounded one way
with the full value in a title, no ± over one value, choice filters, links to the API docs and token page, the
noise recipe in words, one plotly template for every chart, milestone labels that never overlap, plotly.js only on
chart pages under a hashed, immutable name."""

from __future__ import annotations

import json
import re

import pytest
from django.template import Context, Template

from sandmle_web.charts import TEMPLATE, resolved_template


def render(source: str, **context) -> str:
    # The studio's builtins (studio_words) need no {% load %}: every page gets them.
    from django.template import engines

    return engines["django"].from_string(source).render(context)


def test_score_rounds_to_four_decimals_and_keeps_the_full_value_in_its_title():
    html = render("{{ value|score }}", value=0.9679926560587515)
    assert html == '<span class="num-value" title="0.9679926560587515">0.9680</span>'
    assert render("{{ value|score }}", value=None) == "–"
    assert ">0.0000123<" not in render("{{ value|score }}", value=1.23e-5) and ">1.23e-05<" in render(
        "{{ value|score }}", value=1.23e-5)  # not "0.0000"
    assert ">12.500<" in render("{{ value|reward }}", value=12.5)


@pytest.mark.parametrize(("n", "shown", "hidden"), [(1, ["1.000", "n=1"], ["±"]), (3, ["0.500 ", "± ", "0.100"], ["n=3"]),
                                                      (None, ["±"], ["n="])])
def test_mean_spread_shows_no_spread_over_one_value(n, shown, hidden):
    mean = 1.0 if n == 1 else 0.5
    html = render("{% mean_spread mean spread n %}", mean=mean, spread=0.0 if n == 1 else 0.1, n=n)
    text = re.sub(r"<[^>]+>", "", html)
    assert all(word in text for word in shown) and not any(word in text for word in hidden), text


def test_one_spelling_for_statuses_and_the_fields_names_for_scaffolds_and_kinds():
    from tasks_app.models import SynthesizedTask
    from training_app.models import RolloutBatch, TrainingRun

    assert render("{{ v|status_word }}", v="pending_review") == "pending review"
    assert render("{{ v|status_word }}", v="needs_changes") == "changes requested"
    assert render("{{ v|status_word }}", v="request_changes") == "request changes"
    assert dict(SynthesizedTask.Status.choices)["pending_review"] == "pending review"
    assert [label for _, label in RolloutBatch.Scaffold.choices] == ["ReAct", "AIDE", "AIRA", "MLE-Agent"]
    assert [label for _, label in TrainingRun.Kind.choices] == ["GRPO", "SFT"]
    assert render("{{ names|field_names }}", names=["react", "mle_agent", "aira"]) == "ReAct, MLE-Agent, AIRA"
    assert render("{{ v|field_name }}", v="grpo") == "GRPO"


def test_launch_forms_name_scaffolds_as_the_field_does(client_for, task_set):
    client = client_for("curator")
    for path in ("/rollouts/", "/campaigns/"):
        html = client.get(path).content.decode()
        assert ">MLE-Agent<" in html or "MLE-Agent</label>" in html, path
        assert "Mle Agent" not in html and ">React<" not in html and ">Aide<" not in html


def test_task_lists_filter_by_choices_not_free_text(client_for, stored_tasks):
    reviewer = client_for("reviewer")
    for path in ("/tasks/", "/review/", "/task-sets/"):
        html = reviewer.get(path).content.decode()
        for name in ("seed", "modality"):
            select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
            assert select, (path, name)
            assert '<option value="iris"' in select.group(1) or name != "seed"
            assert '<option value="tabular"' in select.group(1) or name != "modality"
        assert re.search(r'<select name="rule_family"[^>]*>.*<option value="threshold_tree"', html, re.S), path
    assert 'name="seed" value=' not in reviewer.get("/tasks/").content.decode()  # no text box left
    bad = reviewer.get("/tasks/", {"seed": "no-such-seed"})
    assert bad.status_code == 400 and 'data-field="seed"' in bad.content.decode()
    task = stored_tasks[0]
    assert task.task_id in reviewer.get("/tasks/", {"seed": "iris", "status": task.status}).content.decode()
    assert 'name="rule_family"' not in client_for("viewer").get("/tasks/").content.decode()


def test_every_page_links_the_api_docs_and_the_token_page(client_for):
    html = client_for("viewer").get("/").content.decode()
    nav, foot = html[html.index("<header"):html.index("</header>")], html[html.index('id="site-foot"'):]
    for part in (nav, foot):
        assert 'href="/api/docs/"' in part and 'href="/account/token/"' in part


def test_the_noise_recipe_reads_as_words_even_in_a_task_made_before(client_for, stored_tasks):
    recipe = {"label_noise": 0.061, "missing_mcar": 0.012, "outliers": 0.0, "unit_shift": 0.055, "distractors": 1,
              "distractor_columns": [{"name": "plot_volume", "unit": "m\u00b3"}]}
    task = stored_tasks[0]
    assert any(entry["message"].startswith("recipe: label noise") for entry in task.log if entry["stage"] == "noise")
    # A task stored before the engine worded it: its log holds the JSON, escapes and all.
    task.log = [{"stage": "noise", "message": "recipe " + json.dumps(recipe, sort_keys=True)}]
    task.save(update_fields=["log"])
    html = client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
    assert "plot_volume (m³)" in html and "\\u00b3" not in html and "&quot;label_noise&quot;" not in html


def _figures(stored_tasks) -> list[dict]:
    from tasks_app.tasks import charts
    from training_app.campaigns.selectors import transfer_figures
    from training_app.latency.selectors import latency_figures
    from training_app.runs.charts import compare_figures, metric_figures

    from tasks_app.tasks.page import _target

    task = stored_tasks[0]
    target = _target(task)
    lines = [{"step": 1, "reward_mean": 0.2, "reward_std": 0.1, "loss": 0.5, "generation_s": 1.0}]
    report = {"policies": ["baseline"], "scaffolds": ["react"], "baseline": "baseline",
              "cells": [{"policy": "baseline", "scaffold": "react", "n": 1, "metrics": {"medal_rate": {"mean": 1.0}}}]}
    latency = {"runs": [{"seed": 0, "full": {"fit": 2.0}, "synth": {"fit": 0.1}, "ratio": 20.0}], "full_rows": 1000,
               "synth_rows": 100, "speedup": 20.0}
    return [charts.ladder_chart(ladder=task.ladder, milestones=task.milestones),
            charts.label_balance_chart(task.bundle_dir, target=target, task_type=task.task_type),
            *[chart["figure"] for chart in charts.feature_distribution_charts(task.bundle_dir, target=target)[:1]],
            *metric_figures(lines).values(), *compare_figures([("a", lines), ("b", lines)]).values(),
            *transfer_figures(report, "medal_rate").values(), *latency_figures(latency).values()]


def test_every_chart_wears_the_one_studio_template(stored_tasks):
    studio = resolved_template()
    assert TEMPLATE != "plotly_white" and studio["layout"]["plot_bgcolor"] == "#ffffff"
    figures = _figures(stored_tasks)
    assert len(figures) >= 10
    for figure in figures:
        assert figure["layout"]["template"] == studio, figure["layout"].get("title")


def test_campaign_bars_over_one_seed_have_no_error_bars():
    from training_app.campaigns.selectors import transfer_figures

    cell = {"policy": "baseline", "scaffold": "react", "n": 1, "metrics": {"medal_rate": {"mean": 1.0, "sem": 0.0}}}
    report = {"policies": ["baseline"], "scaffolds": ["react"], "baseline": "baseline", "cells": [cell]}
    bars = transfer_figures(report, "medal_rate")["bars"]
    assert bars["data"][0]["error_y"]["visible"] is False and "±" not in bars["layout"]["title"]["text"]
    many = transfer_figures(report | {"cells": [cell | {"n": 3, "metrics": {"medal_rate": {"mean": 0.5, "sem": 0.1}}}]},
                            "medal_rate")["bars"]
    assert many["data"][0]["error_y"]["visible"] is True and many["data"][0]["error_y"]["array"] == [0.1]


def test_milestone_labels_take_rows_so_that_none_overlaps():
    from tasks_app.tasks import charts

    # Four thresholds within 0.03 of each other with long source names: one row could never hold them.
    milestones = {"median": 0.70, "bronze": 0.71, "silver": 0.72, "gold": 0.73}
    sources = {name: "halfway from bronze to gold" for name in milestones}
    figure = charts.ladder_chart(ladder={"baseline": 0.4, "oracle": 0.9}, milestones=milestones,
                                 milestone_sources=sources)
    labels = [note for note in figure["layout"]["annotations"] if note.get("name", "").startswith("milestone-")]
    assert len(labels) == 4 and len({note["yshift"] for note in labels}) == 4
    assert all(note.get("textangle") in (None, 0) for note in labels)  # level, not slanted into the title
    assert figure["layout"]["margin"]["t"] >= 44 + 4 * charts.LABEL_ROW_PX
    # Spread out, they share one row; the rule that placed them keeps each row free of overlaps.
    placed = charts.milestone_label_rows([(0.1, "median 0.1000"), (0.5, "bronze 0.5000"), (0.9, "gold 0.9000")],
                                         low=0.0, high=1.0)
    assert [row for row, _ in placed] == [0, 0, 0] and placed[-1][1] in ("center", "right")


def test_plotly_loads_deferred_once_and_only_on_chart_pages(client_for, stored_tasks):
    client = client_for("viewer")
    chart_page = client.get(f"/tasks/{stored_tasks[0].task_id}/").content.decode()
    assert len(re.findall(r'<script src="[^"]*plotly[^"]*\.js" defer></script>', chart_page)) == 1
    for path in ("/", "/tasks/", "/seeds/"):
        assert "plotly" not in client.get(path).content.decode(), path


def test_collected_static_files_are_named_by_hash_and_cached_for_good(client_for, stored_tasks, settings, tmp_path):
    """After collectstatic (here its manifest and one hashed file, as it writes them) a chart page names plotly.js by
    its hash and WhiteNoise serves that name as immutable."""
    from django.test import Client

    hashed = "vendor/plotly.min.0123456789ab.js"
    (tmp_path / "vendor").mkdir()
    (tmp_path / hashed).write_text("/* plotly */")
    # The page's other files keep their names here (a real manifest hashes them all).
    paths = {name: name for name in (
        "studio.css", "vendor/pico.min.css", "js/progress.js", "js/figures.js", "favicon.svg")}
    manifest = {"paths": paths | {"vendor/plotly.min.js": hashed}, "version": "1.1"}
    (tmp_path / "staticfiles.json").write_text(json.dumps(manifest))
    settings.STATIC_ROOT = tmp_path  # resets the static storage; a new Client builds WhiteNoise over this root
    client = Client()
    client.force_login(_user("viewer"))
    page = client.get(f"/tasks/{stored_tasks[0].task_id}/").content.decode()
    assert f'src="/static/{hashed}" defer' in page
    response = client.get(f"/static/{hashed}")
    assert response.status_code == 200 and "immutable" in response["Cache-Control"]
    assert "max-age=315360000" in response["Cache-Control"]


def _user(name: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def test_the_template_names_resolve_without_a_load_tag():
    assert Template("{{ 0.5|reward }}").render(Context()).endswith(">0.500</span>")


def test_a_short_run_gets_one_tick_per_step_and_a_long_one_plotlys_own():
    """Plotly's automatic ticks on a two-step run fall on halves, which the integer format printed twice."""
    from training_app.runs.charts import compare_figures, metric_figures

    short = [{"step": step, "reward_mean": 0.5, "loss": 0.1} for step in (1, 2)]
    long = [{"step": step, "reward_mean": 0.5, "loss": 0.1} for step in range(1, 101)]
    for figure in (*metric_figures(short).values(), *compare_figures([("a", short), ("b", short)]).values()):
        assert figure["layout"]["xaxis"]["dtick"] == 1 and figure["layout"]["xaxis"]["tickmode"] == "linear"
    for figure in (*metric_figures(long).values(), *compare_figures([("a", short), ("b", long)]).values()):
        assert "dtick" not in figure["layout"]["xaxis"] and figure["layout"]["xaxis"]["tickformat"] == "d"


def test_the_reward_components_stack_under_the_total_right_after_the_reward_chart():
    from training_app.runs.charts import metric_figures

    lines = [{"step": step, "reward_mean": 0.1 + 0.2 * step, "reward_components": {"valid": 0.2 * step, "format": 0.1}}
             for step in (1, 2, 3)]
    figures = metric_figures(lines)
    assert list(figures)[:2] == ["reward", "reward_parts"]
    traces = figures["reward_parts"]["data"]
    assert [trace["name"] for trace in traces] == ["valid", "format", "total"]
    assert all(trace.get("stackgroup") == "parts" for trace in traces[:2]) and "stackgroup" not in traces[2]
    stacked = [sum(values) for values in zip(*(trace["y"] for trace in traces[:2]))]
    assert stacked == pytest.approx(traces[2]["y"])
    assert "reward_parts" not in metric_figures([{"step": 1, "reward_mean": 0.5}])
