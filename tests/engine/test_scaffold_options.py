"""Scaffold options and presets: checked with the key named, presets mirroring the originals, budgets applied;
thinking split off before any scaffold parses a reply."""

from __future__ import annotations

import pytest

from sandmle.agents.scaffolds.options import PRESETS, check_scaffold_options, parse_option_pairs, resolve_scaffold_options
from sandmle.agents.scaffolds.replies import json_object, split_thinking
from sandmle.errors import UsageError
from sandmle.evaluation.config import campaign_config_fields, load_campaign_config
from sandmle.settings import ConfigError
from tests.engine.rollout_bundles import make_bundle


def test_upstream_presets_mirror_the_originals():
    aira, budgets = resolve_scaffold_options("aira", {"preset": "upstream"})
    assert (aira["num_drafts"], aira["debug_prob"], aira["max_debug_depth"], aira["crossover_prob"], aira["memory"]) == (
        5, 1.0, 20, 0.0, "all")
    assert budgets["step_timeout_s"] == 14400.0
    assert resolve_scaffold_options("aira", {})[0]["debug_prob"] == 1.0  # the default is upstream's greedy
    assert resolve_scaffold_options("aira", {"preset": "studio"})[0]["memory"] == "branch"
    react, budgets = resolve_scaffold_options("react", {"preset": "paper"})
    assert react["dialect"] == "sandmle" and budgets["max_tokens"] == 4096 and budgets["step_timeout_s"] >= 120
    mle, budgets = resolve_scaffold_options("mle_agent", {"preset": "upstream", "max_turns": "12"})
    assert budgets["max_turns"] == 12 and budgets["max_tokens"] == 8192 and mle["repair_attempts"] == 3
    aide, budgets = resolve_scaffold_options("aide", {"preset": "upstream"})
    assert (aide["num_drafts"], aide["debug_prob"], aide["max_debug_depth"], budgets["max_turns"]) == (5, 0.5, 3, 20)
    assert all("fast" in presets and presets["paper"] is presets["upstream"] for presets in PRESETS.values())


@pytest.mark.parametrize("scaffold, options, message", [
    ("react", {"dialect": "json"}, "scaffold option 'dialect' of react: 'json' is not one of studio, sandmle"),
    ("aide", {"search": "mcts"}, "unknown scaffold option 'search' for aide"),
    ("aira", {"debug_prob": "2"}, "scaffold option 'debug_prob' of aira: '2' is outside [0, 1]"),
    ("aira", {"num_drafts": 2.5}, "scaffold option 'num_drafts' of aira: 2.5 is not a whole number"),
    ("mle_agent", {"history_length": "some"}, "'some' is not a whole number or 'all'"),
    ("aide", {"data_preview": "maybe"}, "'maybe' is not true or false"),
    ("react", {"preset": "fastest"}, "scaffold option 'preset' of react: 'fastest' is not one of"),
    ("react", ["dialect"], "scaffold options of react: expected an object"),
])
def test_bad_options_name_the_scaffold_and_key(scaffold, options, message):
    with pytest.raises(UsageError) as error:
        check_scaffold_options(scaffold, options)
    assert message in str(error.value)


def test_option_pairs_for_every_scaffold_or_one():
    options = parse_option_pairs(["preset=fast", "aira.memory=branch", "react.dialect=sandmle"], ["react", "aira"])
    assert options == {"react": {"preset": "fast", "dialect": "sandmle"}, "aira": {"preset": "fast", "memory": "branch"}}
    with pytest.raises(UsageError, match="'aide' is not one of the scaffolds run"):
        parse_option_pairs(["aide.steps=2"], ["react"])
    with pytest.raises(UsageError, match="unknown scaffold option 'dialect' for aira"):
        parse_option_pairs(["dialect=sandmle"], ["react", "aira"])


def test_campaign_config_checks_scaffold_options(tmp_path):
    task = make_bundle(tmp_path, kind="binary", rows=40)
    base = {"policies": ["baseline"], "scaffolds": ["react", "aira"], "tasks": [str(task)], "out": str(tmp_path / "o")}
    config = load_campaign_config({**base, "scaffold_options": {"aira": {"preset": "upstream", "steps": 3}}})
    assert config.spec.scaffold_options == {"aira": {"preset": "upstream", "steps": 3}}
    with pytest.raises(ConfigError) as error:
        load_campaign_config({**base, "scaffold_options": {"aide": {"steps": 3}}})
    assert error.value.key == "scaffold_options" and "'aide' is not one of the campaign's scaffolds" in str(error.value)
    with pytest.raises(ConfigError) as error:
        load_campaign_config({**base, "scaffold_options": {"react": {"turns": 3}}})
    assert "unknown scaffold option 'turns' for react" in str(error.value)
    assert any(field["key"] == "scaffold_options" for field in campaign_config_fields())


def test_split_thinking_in_every_form():
    assert split_thinking("<think>a {b}</think>answer") == ("a {b}", "answer")
    assert split_thinking("prompt-opened thought}</think>{\"x\": 1}") == ("prompt-opened thought}", '{"x": 1}')
    assert split_thinking('{"x": 1}<think>cut at the token cap {') == ('cut at the token cap {', '{"x": 1}')
    assert split_thinking("no thinking") == ("", "no thinking")
    assert json_object(split_thinking('<think>{"is_bug": true}</think>Verdict: {"is_bug": false}')[1]) == {"is_bug": False}
    assert json_object('```json\n{"metric": 0.5}\n```') == {"metric": 0.5}
    with pytest.raises(ValueError):
        json_object("no braces at all")
