"""LLM-backed domain and rule stages against the local chat-completions server: good replies used and recorded,
invalid ones retried, persistent garbage falling back to the procedural stages, bad rules rejected after execution."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sandmle.llm.client import ChatClient
from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import rules, synthesize, verify_bundle
from sandmle.synth.domains import DOMAINS
from sandmle.synth.llm_stages import LLMDomainStage, LLMRuleStage, rule_problems
from tests.chat_server import ChatServer
from tests.engine.llm_replies import HYDRO_FEATURES, hydro_domain, reading, simulated_llm

IRIS_NAMES = {"sepal", "petal", "setosa", "versicolor", "virginica"}


@pytest.fixture(scope="module")
def iris():
    seed = load_bundled_seed("iris")
    names = {str(c) for c in seed.frame.columns} | {str(v) for v in seed.frame[seed.target].unique()}
    return extract_dna(seed), names


def test_good_domain_reply_is_used_and_recorded(chat_server, chat_client, iris):
    dna, seed_names = iris
    chat_server.script("Here you go:\n```json\n" + hydro_domain() + "\n```")
    log = []
    choice = LLMDomainStage(chat_client)(dna, rng=np.random.default_rng(0), seed_names=seed_names, log=log)
    assert choice.domain_id == "hydro_turbine_wear" and choice.source == "llm:test-model"
    assert [f["name"] for f in choice.features] == ["head_pressure", "flow_rate", "runner_vibration", "silt_load"]
    assert choice.label_names == ["sound", "cavitation_pitting", "abrasion"]
    assert any("answered on attempt 1" in entry["message"] for entry in log)
    prompt = json.dumps(chat_server.requests[0]["messages"]).lower()
    assert not any(name in prompt for name in IRIS_NAMES)  # only DNA statistics reach the endpoint
    statistics = json.loads(chat_server.requests[0]["messages"][1]["content"].splitlines()[1])
    assert statistics["n_classes"] == 3 and len(statistics["columns"]) == 4
    assert set(statistics["columns"][0]) <= {"slot", "kind", "missing_rate", "skewness", "heavy_tailed", "modes",
                                             "non_negative"}


def test_invalid_json_is_retried_then_accepted(chat_server, chat_client, iris):
    dna, seed_names = iris
    chat_server.script("I think a turbine domain would be nice.", hydro_domain())
    log = []
    choice = LLMDomainStage(chat_client)(dna, rng=np.random.default_rng(0), seed_names=seed_names, log=log)
    assert choice.source == "llm:test-model" and len(chat_server.requests) == 2
    assert "not acceptable" in chat_server.requests[1]["messages"][-2]["content"]
    assert any("attempt 1 rejected: no JSON object" in entry["message"] for entry in log)


def test_domain_checks_reject_seed_names_wrong_counts_and_units(chat_server, chat_client, iris):
    dna, seed_names = iris
    chat_server.script(
        hydro_domain(features=[reading("sepal_size", "cm", (2, 9)), *HYDRO_FEATURES[1:]]),
        hydro_domain(label_names=["sound", "abrasion"]),
        hydro_domain(features=[reading("head_pressure", "count", (1, 9), whole=True), *HYDRO_FEATURES[1:]]),
    )
    log = []
    choice = LLMDomainStage(chat_client)(dna, rng=np.random.default_rng(0), seed_names=seed_names, log=log)
    messages = " | ".join(entry["message"] for entry in log)
    assert "'sepal_size' is not allowed" in messages
    assert "label_names" in messages and "'count' does not fit" in messages
    assert "fell back to the procedural stage" in messages
    assert choice.source == "library" and choice.domain_id in {d.domain_id for d in DOMAINS}


def test_domain_replies_must_declare_plausible_ranges(chat_server, chat_client, iris):
    """A numeric column without its range fails the schema; a range the unit cannot hold, an empty one or a typical
    range outside its own bounds fails the checks; the accepted reply's ranges reach the DomainChoice."""
    dna, seed_names = iris
    undeclared = [{"name": "head_pressure", "unit": "bar"}, *HYDRO_FEATURES[1:]]
    wrong = [reading("head_pressure", "%", (20, 90), bounds=(0, 150)), reading("flow_rate", "m³/s", (180, 20)),
             reading("runner_vibration", "mm/s", (0.5, 6), bounds=(1, 5)), HYDRO_FEATURES[3]]
    chat_server.script(hydro_domain(features=undeclared), hydro_domain(features=wrong), hydro_domain())
    log = []
    choice = LLMDomainStage(chat_client)(dna, rng=np.random.default_rng(0), seed_names=seed_names, log=log)
    messages = " | ".join(entry["message"] for entry in log)
    assert "'typical' is a required property" in messages
    assert "bounds 0..150 go beyond what '%' allows" in messages
    assert "typical range 180..20 is empty" in messages and "typical range 0.5..6 leaves the bounds 1..5" in messages
    assert choice.source == "llm:test-model"
    assert choice.features[0] == {"name": "head_pressure", "unit": "bar", "typical": [8.0, 25.0],
                                  "bounds": [0.0, None], "whole": False}


def test_persistent_garbage_falls_back_to_the_procedural_stages(chat_server, chat_client, iris):
    dna, seed_names = iris
    chat_server.reply_fn = lambda request: "no idea, sorry"
    log = []
    choice = LLMDomainStage(chat_client, attempts=2)(dna, rng=np.random.default_rng(0), seed_names=seed_names, log=log)
    assert choice.source == "library" and len(chat_server.requests) == 2
    assert "no acceptable LLM answer after 2 attempts" in log[-2]["message"]
    assert "fell back to the procedural stage" in log[-2]["message"] and log[-1]["message"].startswith("chose ")


def test_unreachable_endpoint_falls_back_at_once_and_is_remembered(iris):
    dna, seed_names = iris
    with ChatServer() as server:
        url = server.base_url  # a port that nothing listens on once the server stops
    client = ChatClient(url, "gone", api_key="k", timeout_s=2, max_retries=0)
    stage = LLMDomainStage(client)
    first, second = [], []
    stage(dna, rng=np.random.default_rng(0), seed_names=seed_names, log=first)
    stage(dna, rng=np.random.default_rng(1), seed_names=seed_names, log=second)
    assert "LLM endpoint unusable (" in first[0]["message"] and "unusable earlier in this run" in second[0]["message"]


@pytest.fixture(scope="module")
def preview():
    rng = np.random.default_rng(3)
    return pd.DataFrame({"load": rng.normal(50, 10, 400), "heat": rng.uniform(0, 100, 400),
                         "shift": rng.integers(0, 3, 400).astype(float), "noise": rng.normal(size=400)})


def rule_list(*clauses, default=0, features=("heat", "load")) -> dict:
    return {"family": "rule_list", "features": list(features), "default": default,
            "clauses": [{"when": [{"feature": f, "op": op, "threshold": t}], "label": label} for f, op, t, label in clauses]}


GOOD_RULE = rule_list(("load", ">", 55.0, 1), ("heat", "<=", 35.0, 2))


def test_good_rule_reply_is_executed_and_recorded(chat_server, chat_client, preview):
    chat_server.script(json.dumps(GOOD_RULE))
    log = []
    rule = LLMRuleStage(chat_client)("rule_list", preview, n_classes=3, rng=np.random.default_rng(0), log=log)
    assert rule == GOOD_RULE | {"source": "llm:test-model"}
    assert set(rules.apply_rule(rule, preview)) == {0, 1, 2}
    prompt = chat_server.requests[0]["messages"][1]["content"]
    assert '"family": "rule_list"' in prompt and '"column": "load"' in prompt


def test_single_class_rule_is_rejected_and_the_procedural_rule_used(chat_server, chat_client, preview):
    single_class = rule_list(("load", ">", 1e9, 1), ("heat", "<=", -1.0, 2))
    chat_server.reply_fn = lambda request: json.dumps(single_class)
    log = []
    rule = LLMRuleStage(chat_client)("rule_list", preview, n_classes=3, rng=np.random.default_rng(0), log=log)
    assert "classes too rare on the preview rows: 1 (0.0%), 2 (0.0%)" in log[0]["message"]
    assert "fell back to the procedural stage" in log[-1]["message"] and "source" not in rule
    assert rule["family"] == "rule_list" and len(set(rules.apply_rule(rule, preview))) == 3


def test_rule_checks_catch_hidden_columns_bad_labels_and_broken_rules(preview):
    hidden = rule_list(("load", ">", 55.0, 1), ("shift", "<=", 0.5, 2), features=("load",))
    assert rule_problems(hidden, preview, n_classes=3) == ["the rule reads columns missing from features: shift"]
    assert "class labels 0..2" in rule_problems(rule_list(("load", ">", 55.0, 5)), preview, n_classes=3)[0]
    broken = rule_problems(rule_list(("wear", ">", 1.0, 1)) | {"features": ["load"]}, preview, n_classes=3)
    assert broken[0].startswith("executing the rule failed: KeyError")
    assert rule_problems(GOOD_RULE | {"features": ["load", "heat", "shift", "noise"]}, preview, n_classes=3) == [
        "the rule reads every column; leave at least one as a distractor"]
    flat = {"family": "sparse_additive", "features": ["load"], "centre": {"load": 0.0}, "scale": {"load": 1.0},
            "terms": [{"feature": "load", "kind": "linear", "weight": 0.0}], "intercept": 3.0}
    assert "barely vary" in rule_problems(flat, preview, n_classes=0)[0]


def test_synthesize_with_an_llm_records_its_choices_in_the_spec(chat_server, chat_client, tmp_path):
    chat_server.reply_fn = simulated_llm
    [result] = synthesize(load_bundled_seed("iris"), count=1, rng=2, out_dir=tmp_path, llm=chat_client)
    assert result.spec.domain["domain_id"] == "hydro_turbine_wear" and result.spec.domain["source"] == "llm:test-model"
    assert result.spec.rule["source"] == "llm:test-model"
    assert {entry["stage"] for entry in result.log if "llm:test-model answered" in entry["message"]} == {"domain", "rule"}
    if result.status == "validated":  # the bundle is a pure function of the spec, whoever designed it
        assert verify_bundle(result.bundle_dir)
    description = (result.bundle_dir / "public" / "description.md").read_text()
    assert "Hydro Turbine Runner Wear Class" in description and "gauge_1" in description


def test_cli_synth_with_llm_url_uses_the_endpoint_and_key_env(chat_server, tmp_path):
    chat_server.reply_fn = simulated_llm
    env = os.environ | {"SYNTH_TEST_KEY": "secret-from-env"}
    result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--seed", "iris", "--count", "1", "--rng", "2",
                             "--out", str(tmp_path), "--llm-url", chat_server.base_url, "--llm-model", "test-model",
                             "--llm-key-env", "SYNTH_TEST_KEY"], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["domain"] == "hydro_turbine_wear"
    spec = json.loads((tmp_path / summary["id"] / "task.json").read_text())["spec"]
    assert spec["domain"]["source"] == "llm:test-model" and spec["rule"]["source"] == "llm:test-model"
    assert chat_server.requests[0]["_headers"]["authorization"] == "Bearer secret-from-env"
    assert chat_server.requests[0]["model"] == "test-model"


def test_cli_refuses_half_llm_settings(tmp_path):
    result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--seed", "iris", "--out", str(tmp_path),
                             "--llm-url", "http://127.0.0.1:9/v1"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--llm-model" in result.stderr and len(result.stderr.splitlines()) == 1
