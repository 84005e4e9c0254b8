"""An episode's budgets are declared once (sandmle/episodes/budget.py): every table, option and flag has them under
the declared keys and defaults."""

from __future__ import annotations

import argparse

import pytest

from sandmle.agents.policies import SamplingParams
from sandmle.agents.scaffolds.options import BUDGET_OPTIONS, resolve_scaffold_options
from sandmle.commands.budget_args import add_budget_flags
from sandmle.episodes.budget import BUDGET_DEFAULTS, BUDGET_KEYS, budget, budget_fields, episode_budget_kwargs
from sandmle.episodes.runner import EpisodeConfig
from sandmle.evaluation.campaign import CampaignSpec
from sandmle.evaluation.config import campaign_config_fields
from sandmle.rl.config import config_fields, load_train_config
from sandmle.settings import ConfigError


def test_every_table_has_every_budget_under_its_key_and_default():
    for table in (config_fields("grpo"), campaign_config_fields()):
        fields = {entry["key"]: entry for entry in table}
        assert {key: fields[key]["default"] for key in BUDGET_KEYS} == BUDGET_DEFAULTS
    assert tuple(BUDGET_OPTIONS) == BUDGET_KEYS
    config, sampling = EpisodeConfig(), SamplingParams()
    assert {key: getattr(sampling if budget(key).sampling else config, key) for key in BUDGET_KEYS} == BUDGET_DEFAULTS
    spec = CampaignSpec(policies=["baseline"], scaffolds=["react"], tasks=[])
    assert {key: getattr(spec, key) for key in BUDGET_KEYS} == BUDGET_DEFAULTS


def test_a_table_keeps_its_own_wording_and_range():
    fields = {f.key: f for f in budget_fields({"temperature": {"min": 0.01, "reference": "1.0 (x)"}})}
    assert fields["temperature"].min == 0.01 and fields["temperature"].reference == "1.0 (x)"
    assert fields["max_tokens"].help == budget("max_tokens").help and fields["max_tokens"].reference is None
    grpo = {entry["key"]: entry for entry in config_fields("grpo")}
    assert grpo["temperature"]["min"] == 0.01 and grpo["max_turns"]["reference"].startswith("15")
    with pytest.raises(KeyError, match="max_response_tokens"):
        budget_fields({"max_response_tokens": {}})


def test_budgets_split_into_the_episode_and_its_sampling():
    episode, sampling = episode_budget_kwargs({**BUDGET_DEFAULTS, "seed": 3})
    assert set(sampling) == {"max_tokens", "temperature"} and "seed" not in episode
    assert set(episode) == {"max_turns", "context_tokens", "step_timeout_s", "time_budget_s"}
    EpisodeConfig(**episode, sampling=SamplingParams(**sampling))


def test_a_scaffold_preset_sets_budgets_under_the_same_keys():
    _, budgets = resolve_scaffold_options("react", {"preset": "upstream"})
    assert budgets["max_tokens"] == 4096 and set(budgets) <= set(BUDGET_KEYS)


def test_the_older_name_of_the_reply_limit_is_refused_with_the_new_one(tmp_path):
    with pytest.raises(ConfigError, match="max_response_tokens: renamed max_tokens"):
        load_train_config({"model": "m", "tasks": ["t"], "output_dir": str(tmp_path), "max_response_tokens": 8})
    config = load_train_config({"model": "m", "tasks": ["t"], "output_dir": str(tmp_path), "max_tokens": 8})
    assert config.max_tokens == 8


def test_the_flags_are_the_keys_and_the_older_flags_still_read():
    parser = argparse.ArgumentParser()
    add_budget_flags(parser, with_defaults=True)
    assert {key: value for key, value in vars(parser.parse_args([])).items()} == BUDGET_DEFAULTS
    args = parser.parse_args(["--time-budget", "5", "--step-timeout-s", "2", "--max-tokens", "7"])
    assert (args.time_budget_s, args.step_timeout_s, args.max_tokens) == (5.0, 2.0, 7)
    parser = argparse.ArgumentParser()
    add_budget_flags(parser, with_defaults=False)
    assert set(vars(parser.parse_args([])).values()) == {None}
