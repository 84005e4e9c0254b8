"""The sampling schedule from every surface that samples outside training: `sandmle rollout` flags, `sandmle eval`
flags and a campaign spec, each checked by the one key table and carried into the episodes' sampling."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.engine.rollout_bundles import make_bundle

pytestmark = pytest.mark.torch


def cli(*args):
    return subprocess.run([sys.executable, "-m", "sandmle.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "OMP_NUM_THREADS": "1"})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    pytest.importorskip("torch").set_num_threads(1)
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("schedule") / "checkpoint")


def test_rollout_flags_anneal_each_reply(tmp_path, tiny):
    task = make_bundle(tmp_path / "tasks", kind="regression")
    out = tmp_path / "annealed.jsonl"
    done = cli("rollout", task, "--scaffold", "react", "--policy", f"hf:{tiny}", "--out", out, "--max-turns", "1",
               "--max-tokens", "8", "--temperature-schedule", "annealed", "--anneal-skip-tokens", "2",
               "--anneal-decay", "4", "--temperature-min", "0.2")
    assert done.returncode == 0, done.stderr
    usage = json.loads(out.read_text().splitlines()[0])["turns"][0]["extra"]["usage"]
    assert usage["temperature_first"] == 1.0
    assert usage["completion_tokens"] < 4 or usage["temperature_last"] == pytest.approx(0.2)


def test_a_bad_schedule_flag_is_one_line_and_exit_2(tmp_path):
    task = make_bundle(tmp_path / "tasks", kind="regression")
    done = cli("rollout", task, "--scaffold", "react", "--policy", "baseline", "--out", tmp_path / "x.jsonl",
               "--temperature-schedule", "annealed", "--temperature-min", "1.5", "--temperature-max", "1.2")
    assert done.returncode == 2 and not (tmp_path / "x.jsonl").exists()
    assert done.stderr.strip().splitlines()[-1].endswith("temperature_min: 1.5 is above temperature_max 1.2")


def test_a_campaign_spec_carries_the_checked_schedule_into_its_episodes(tmp_path, tiny):
    from sandmle.evaluation.config import load_campaign_config
    from sandmle.settings import ConfigError

    task = make_bundle(tmp_path / "tasks", kind="regression")
    settings = {"policies": [f"hf:{tiny}"], "scaffolds": ["react"], "tasks": [str(task)], "out": str(tmp_path / "c"),
                "seeds": 1, "max_turns": 1, "max_tokens": 6, "temperature_schedule": "annealed",
                "anneal_skip_tokens": 1, "anneal_decay": 3.0}
    config = load_campaign_config(settings)
    assert config.spec.schedule["temperature_schedule"] == "annealed" and config.spec.schedule["anneal_scope"] == "reply"
    assert load_campaign_config({**settings, "temperature_schedule": "constant"}).spec.schedule == {}
    with pytest.raises(ConfigError, match="anneal_scope"):
        load_campaign_config({**settings, "anneal_scope": "turn"})

    from sandmle.evaluation.campaign import run_campaign

    run_campaign(config.spec, config.out)
    episode = json.loads((config.out / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["trajectory"]["turns"][0]["extra"]["usage"]["temperature_first"] == 1.0
    assert json.loads((config.out / "spec.json").read_text())["schedule"]["anneal_decay"] == 3.0
