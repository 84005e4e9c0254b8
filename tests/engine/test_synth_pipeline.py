"""The synthesis pipeline: bundle layout, determinism, the critic, and the CLI on every bundled seed (families: test_synth_rules/_images/_text)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import bundled_seed_names, load_bundled_seed
from sandmle.synth import TaskSpec, build_bundle, synthesize, verify_bundle
from sandmle.synth import calibrate
from sandmle.synth.domains import DOMAINS, mutate_domain, name_tokens


@pytest.mark.parametrize("name", bundled_seed_names())
def test_domains_never_reuse_seed_names(name):
    assert len(DOMAINS) >= 40 and len({d.sector for d in DOMAINS}) >= 12
    seed = load_bundled_seed(name)
    dna = extract_dna(seed)
    names = {str(c) for c in seed.frame.columns} | {str(v) for v in seed.frame[seed.target].unique()}
    seed_words = set().union(*(name_tokens(n) for n in names))
    for rng in range(12):
        choice = mutate_domain(dna, rng=np.random.default_rng(rng), seed_names=names)
        used = [f["name"] for f in choice.features] + [choice.target_name] + choice.label_names
        assert not set(used) & names and not set().union(*(name_tokens(n) for n in used)) & seed_words
        assert len({f["name"] for f in choice.features}) == len(choice.features)
        assert len(choice.label_names) == (0 if dna.task_type == "regression" else dna.n_classes)


@pytest.fixture(scope="module")
def wine_tasks(tmp_path_factory):
    return synthesize(load_bundled_seed("wine"), count=1, rng=5, out_dir=tmp_path_factory.mktemp("wine"))


def test_bundle_layout_and_grading_contract(wine_tasks):
    task = wine_tasks[0]
    root = Path(task.bundle_dir)
    for relative in ("public/description.md", "public/train.csv", "public/test.csv", "public/sample_submission.csv",
                     "private/answers.csv", "private/rule.json", "private/grading.json", "task.json"):
        assert (root / relative).is_file(), relative
    train = pd.read_csv(root / "public/train.csv")
    test = pd.read_csv(root / "public/test.csv")
    assert 50 <= len(train) <= 200 and len(test) >= 300
    grading = json.loads((root / "private/grading.json").read_text())
    milestones = [grading["milestones"][name] for name in ("median", "bronze", "silver", "gold")]
    assert milestones == sorted(milestones) and len(set(milestones)) == 4
    assert set(pd.read_csv(root / "private/answers.csv")["leaderboard"]) == {"public", "private"}
    assert grading["target_column"] in train.columns and grading["target_column"] not in test.columns


def test_same_spec_same_bytes(wine_tasks, tmp_path):
    task = json.loads((Path(wine_tasks[0].bundle_dir) / "task.json").read_text())
    assert verify_bundle(wine_tasks[0].bundle_dir)
    rebuilt = build_bundle(TaskSpec.from_dict(task["spec"]), tmp_path)
    original = Path(wine_tasks[0].bundle_dir)
    for relative in ("public/train.csv", "public/test.csv", "private/answers.csv", "private/rule.json"):
        assert (rebuilt / relative).read_bytes() == (original / relative).read_bytes()


def test_critic_rejects_a_planted_leak():
    rng = np.random.default_rng(0)
    y_train, y_test = rng.integers(0, 2, 150), rng.integers(0, 2, 300)
    train = pd.DataFrame({"id": range(150), "noise": rng.normal(size=150), "leaky": y_train + rng.normal(0, .01, 150)})
    test = pd.DataFrame({"id": range(150, 450), "noise": rng.normal(size=300), "leaky": y_test + rng.normal(0, .01, 300)})
    leaks = calibrate.single_column_scores(train, test, y_train, y_test, metric="accuracy", task_type="binary")
    ladder = {"baseline": 0.5, "linear": 0.7, "ensemble": 0.75, "oracle": 0.95}
    reasons = calibrate.critic(ladder=ladder, milestones=calibrate.milestone_thresholds(ladder, is_lower_better=False),
                               is_lower_better=False, leak_scores=leaks, shift_pvalues={})
    assert any("leak: column 'leaky'" in reason for reason in reasons)
    assert not any("'noise'" in reason for reason in reasons)


def test_critic_rejects_flat_and_effortless_ladders():
    flat = {"baseline": 0.50, "linear": 0.51, "ensemble": 0.51, "oracle": 0.515}
    reasons = calibrate.critic(ladder=flat, milestones={}, is_lower_better=False, leak_scores={}, shift_pvalues={})
    assert any("flat ladder" in r for r in reasons)
    effortless = {"baseline": 0.30, "linear": 0.80, "ensemble": 0.94, "oracle": 0.95}
    reasons = calibrate.critic(ladder=effortless, milestones={}, is_lower_better=False, leak_scores={}, shift_pvalues={})
    assert [r for r in reasons if "no headroom" in r] == reasons and reasons
    rmse = {"baseline": 30.0, "linear": 20.0, "ensemble": 12.0, "oracle": 4.0}
    thresholds = calibrate.milestone_thresholds(rmse, is_lower_better=True)
    assert thresholds["median"] > thresholds["bronze"] > thresholds["silver"] > thresholds["gold"] > rmse["oracle"]


def test_cli_synthesizes_validated_tasks_on_every_bundled_seed(tmp_path):
    modalities = set()
    for name in bundled_seed_names():
        result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--seed", name, "--count", "1",
                                 "--rng", "3", "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout.splitlines()[-1])
        assert summary["status"] == "validated", summary
        modalities.add(json.loads((tmp_path / summary["id"] / "task.json").read_text())["spec"]["dna"]["modality"])
    assert modalities == {"tabular", "image"}


def test_cli_refuses_unusable_arguments(tmp_path):
    result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--seed", "nope", "--out", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "unknown bundled seed" in result.stderr and len(result.stderr.splitlines()) == 1
