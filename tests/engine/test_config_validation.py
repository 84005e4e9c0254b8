"""GRPO, SFT and evaluation settings files: unknown keys, wrong types and out-of-range values exit 2 in one line naming the key."""

from __future__ import annotations

import pytest
import yaml

from sandmle.cli import main
from sandmle.evaluation.config import campaign_config_fields, load_campaign_config
from sandmle.rl.config import load_train_config
from sandmle.settings import ConfigError
from tests.engine.rollout_bundles import make_bundle

GRPO = {"model": "ckpt", "tasks": ["t1"], "output_dir": "out"}
SFT = {"model": "ckpt", "dataset": ["d.jsonl"], "output_dir": "out"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("bundles"), rows=60)


def _run(argv, capsys) -> str:
    """The one stderr line of a refused command (exit 2, nothing on stdout)."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    return lines[0]


GRPO_BAD = [
    ({"group_sise": 4}, "group_sise", "unknown setting"),
    ({"steps": "many"}, "steps", "expected an integer"),
    ({"steps": 2.5}, "steps", "expected an integer"),
    ({"steps": 10**9}, "steps", "above the maximum"),
    ({"learning_rate": 3}, "learning_rate", "above the maximum"),
    ({"temperature": 0}, "temperature", "below the minimum"),
    ({"seed": -1}, "seed", "below the minimum"),
    ({"success_threshold": 2.0}, "success_threshold", "above the maximum"),
    ({"bf16": "yes"}, "bf16", "true or false"),
    ({"tasks": [1, 2]}, "tasks", "list of paths"),
    ({"model": "m\x00"}, "model", "without nul"),
    ({"judge_key_env": "$(rm -rf)"}, "judge_key_env", "environment variable name"),
    ({"lora": {"r": 5000}}, "lora.r", "above the maximum"),
    ({"lora": {"rank": 8}}, "lora.rank", "unknown setting"),
    ({"learning_rate": float("nan")}, "learning_rate", "finite"),
]


@pytest.mark.parametrize("bad, key, words", GRPO_BAD, ids=[case[1] + "-" + case[2] for case in GRPO_BAD])
def test_grpo_file_refused_with_the_key(bad, key, words, tmp_path, capsys):
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({**GRPO, **bad}, allow_unicode=True))
    line = _run(["grpo", "--config", str(path)], capsys)
    assert line.startswith(f"sandmle grpo: {key}: ") and words in line.lower(), line


@pytest.mark.parametrize("bad, key, words", [
    ({"group_size": 4}, "group_size", "unknown setting"),
    ({"epochs": "two"}, "epochs", "expected a number"),
    ({"batch_size": 0}, "batch_size", "below the minimum"),
    ({"max_length": 10**9}, "max_length", "above the maximum"),
    ({"dataset": []}, "dataset", "at least one"),
])
def test_sft_file_refused_with_the_key(bad, key, words, tmp_path, capsys):
    path = tmp_path / "sft.yaml"
    path.write_text(yaml.safe_dump({**SFT, **bad}))
    line = _run(["sft", "--config", str(path)], capsys)
    assert line.startswith(f"sandmle sft: {key}: ") and words in line.lower(), line


@pytest.mark.parametrize("text, words", [
    ("model: [unclosed", "not valid yaml"),
    ("- a list\n- not a mapping\n", "mapping"),
    ("\xff\xfe", "not valid yaml"),
])
def test_an_unreadable_file_names_the_config(text, words, tmp_path, capsys):
    path = tmp_path / "run.yaml"
    path.write_bytes(text.encode("latin-1"))
    line = _run(["grpo", "--config", str(path)], capsys)
    assert line.startswith("sandmle grpo: config: ") and words in line.lower(), line


def test_bad_set_values_name_their_key(tmp_path, capsys):
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(GRPO))
    assert "steps: not a valid YAML value" in _run(["grpo", "--config", str(path), "--set", "steps=[1"], capsys)
    assert _run(["grpo", "--config", str(path), "--set", "nope"], capsys).startswith("sandmle grpo: nope: expected")
    assert "lora.r: " in _run(["grpo", "--config", str(path), "--set", "lora.r=-3"], capsys)


def test_mixed_key_types_and_yaml_1_1_numbers():
    with pytest.raises(ConfigError, match="unknown setting"):
        load_train_config({**GRPO, 1: 2, "zz": 3})
    assert load_train_config({**GRPO, "learning_rate": "3e-6"}).learning_rate == 3e-6  # PyYAML reads 3e-6 as text
    with pytest.raises(ConfigError, match="^learning_rate: expected a number"):
        load_train_config({**GRPO, "learning_rate": "fast"})
    with pytest.raises(ConfigError) as caught:
        load_train_config({**GRPO, "model": ["x" * 10_000]})
    assert len(str(caught.value)) < 200  # a huge value is cut short in the message


def _campaign(bundle, **changes) -> dict:
    return {"policies": ["baseline"], "scaffolds": ["react"], "tasks": [str(bundle)], "out": "campaign-out",
            **changes}


EVAL_BAD = [
    ({"policy": ["baseline"]}, "policy", "unknown setting"),
    ({"scaffolds": ["react", "reflexion"]}, "scaffolds", "one or more of"),
    ({"scaffolds": ["react", "react"]}, "scaffolds", "twice"),
    ({"seeds": 0}, "seeds", "below the minimum"),
    ({"seeds": "3"}, "seeds", "expected an integer"),
    ({"max_turns": 10_000}, "max_turns", "above the maximum"),
    ({"temperature": 9}, "temperature", "above the maximum"),
    ({"time_budget_s": "long"}, "time_budget_s", "expected a number"),
    ({"feedback": "all"}, "feedback", "one of"),
    ({"baseline": "gpt"}, "baseline", "not one of the policies"),
    ({"policies": []}, "policies", "list of strings"),
    ({"policies": ["baseline", "baseline"]}, "policies", "twice"),
    ({"concurrency": 0}, "concurrency", "below the minimum"),
    ({"api_key_env": "A B"}, "api_key_env", "environment variable name"),
]


@pytest.mark.parametrize("changes, key, words", EVAL_BAD, ids=[case[1] + "-" + case[2] for case in EVAL_BAD])
def test_eval_file_refused_with_the_key(changes, key, words, bundle, tmp_path, capsys):
    path = tmp_path / "campaign.yaml"
    path.write_text(yaml.safe_dump(_campaign(bundle, **changes)))
    line = _run(["eval", "--config", str(path)], capsys)
    assert line.startswith(f"sandmle eval: {key}: ") and words in line.lower(), line
    assert not (tmp_path / "campaign-out").exists()


def test_eval_flags_are_checked_by_the_same_table(bundle, capsys):
    line = _run(["eval", "--policy", "baseline", "--scaffold", "react", "--tasks", str(bundle), "--out", "o",
                 "--seeds", "0"], capsys)
    assert line.startswith("sandmle eval: seeds: ")
    assert _run(["eval", "--scaffold", "react", "--tasks", str(bundle), "--out", "o"], capsys).startswith(
        "sandmle eval: policies: required")
    assert "tasks: " in _run(["eval", "--policy", "baseline", "--scaffold", "react", "--tasks",
                                        str(bundle.parent / "missing"), "--out", "o"], capsys)


def test_a_good_campaign_config_resolves_defaults_and_flags_win(bundle, tmp_path):
    config = load_campaign_config(_campaign(bundle), ["seeds=2", "temperature=0.5"])
    assert (config.spec.seeds, config.spec.temperature, config.spec.max_turns, config.concurrency) == (2, 0.5, 15, 1)
    assert {entry["key"] for entry in campaign_config_fields()} >= {"policies", "scaffolds", "seeds", "temperature"}
