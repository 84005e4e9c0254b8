"""The curator's engine controls: noise strength scales the recipe (1 leaves it as it was), and headroom or
difficulty targets turn a task that passes the critic but misses them into a retried, then rejected, one."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import TaskSpec, build_bundle, noise, synthesize, targets, verify_bundle
from sandmle.synth.domains import mutate_domain

INTENSITIES = [kind for kind in noise.NOISE_KINDS if kind != "distractors"]
# sha256 of the rng-0 recipe of each seed as the engine made it before noise strength existed: scale 1 keeps it.
RECIPES_BEFORE = {"iris": "9e243563230bd617", "wine": "bf60f1f5cccc5634", "digits": "a71dfee9c82cd4f3"}


def recipe(seed_name: str, rng_seed: int = 0, **kwargs) -> dict:
    seed = load_bundled_seed(seed_name)
    dna, names = extract_dna(seed), {str(c) for c in seed.frame.columns}
    rng = np.random.default_rng(rng_seed)
    choice = mutate_domain(dna, rng=rng, seed_names=names)
    return noise.design_recipe(dna, choice, rng=rng, seed_names=names, **kwargs)


@pytest.mark.parametrize("seed_name", sorted(RECIPES_BEFORE))
def test_scale_one_is_the_recipe_of_before(seed_name):
    made = recipe(seed_name, scale=1.0)
    assert hashlib.sha256(json.dumps(made, sort_keys=True).encode()).hexdigest()[:16] == RECIPES_BEFORE[seed_name]
    assert "scale" not in made and made == recipe(seed_name)


def test_scale_zero_is_a_clean_recipe_and_two_is_stronger_within_the_caps():
    for rng_seed in range(4):
        clean = recipe("wine", rng_seed, scale=0.0)
        assert all(clean[kind] == 0 for kind in INTENSITIES) and clean["distractors"] == 0
        assert clean["distractor_columns"] == [] and clean["scale"] == 0.0
        assert noise.describe_recipe(clean) == "no noise (noise strength 0×)"
        usual, strong = recipe("wine", rng_seed), recipe("wine", rng_seed, scale=2.0)
        for kind in INTENSITIES:  # the same draws, doubled up to the cap
            assert strong[kind] == pytest.approx(min(2 * usual[kind], noise.NOISE_CAPS[kind]), abs=1e-4)
            assert strong[kind] <= noise.NOISE_CAPS[kind]
        assert strong["label_noise"] > usual["label_noise"]
        assert strong["distractors"] == min(2 * usual["distractors"], noise.MAX_DISTRACTORS)
        assert len(strong["distractor_columns"]) == strong["distractors"]
    with pytest.raises(ValueError, match="noise scale"):
        recipe("wine", scale=noise.NOISE_SCALE_MAX + 0.5)


def test_a_clean_task_builds_rebuilds_and_keeps_its_scale_in_the_spec(tmp_path):
    (clean,) = synthesize(load_bundled_seed("iris"), count=1, rng=21, out_dir=tmp_path / "clean", n_train=60,
                          families=("rule_list",), attempts=1, noise_scale=0.0)
    (usual,) = synthesize(load_bundled_seed("iris"), count=1, rng=21, out_dir=tmp_path / "usual", n_train=60,
                          families=("rule_list",), attempts=1)
    assert clean.task_id != usual.task_id and clean.spec.noise["scale"] == 0.0 and "scale" not in usual.spec.noise
    assert not [entry for entry in clean.log if entry["stage"] == "noise" and not entry["message"].startswith("recipe")]
    assert clean.ladder and verify_bundle(clean.bundle_dir)  # a complete, calibrated bundle that rebuilds byte for byte
    task = json.loads((clean.bundle_dir / "task.json").read_text())
    spec = TaskSpec.from_dict(task["spec"])
    assert spec == clean.spec and spec.task_id == clean.task_id
    old = dict(task["spec"], noise={k: v for k, v in task["spec"]["noise"].items() if k != "scale"})
    assert TaskSpec.from_dict(old).noise.get("scale", 1.0) == 1.0  # a task.json from before the control still loads
    assert build_bundle(spec, tmp_path / "rebuilt").name == clean.task_id


def test_difficulty_bands_and_target_reasons_name_the_target():
    assert [targets.difficulty_of(h) for h in (0.9, 0.75, 0.6, 0.5, 0.41)] == ["easy", "easy", "medium", "medium", "hard"]
    assert targets.target_reasons(0.41, min_headroom=0.6) == ["target missed: headroom 0.41 below the chosen 0.6"]
    assert targets.target_reasons(0.62, difficulty="hard") == ["target missed: medium (headroom 0.62), not the chosen hard"]
    assert targets.target_reasons(0.62, min_headroom=0.5, difficulty="medium") == []
    assert targets.target_reasons(None) == []
    for bad in ({"min_headroom": 1.5}, {"min_headroom": -0.1}, {"difficulty": "brutal"}):
        with pytest.raises(ValueError):
            targets.check_targets(**bad)


def test_an_unreachable_target_retries_then_rejects_with_its_reason(tmp_path):
    (result,) = synthesize(load_bundled_seed("iris"), count=1, rng=21, out_dir=tmp_path, n_train=60,
                           families=("rule_list",), attempts=2, min_headroom=1.0)
    assert result.status == "rejected" and len(result.attempts) == 2  # a target miss is retried like a critic's
    assert result.reasons == [f"target missed: headroom {result.headroom:.2f} below the chosen 1"]


def test_a_reachable_target_keeps_the_tasks_that_meet_it(tmp_path):
    results = synthesize(load_bundled_seed("iris"), count=2, rng=21, out_dir=tmp_path, n_train=60,
                         families=("rule_list",), attempts=3, difficulty="easy")
    kept = [r for r in results if r.status == "validated"]
    assert kept and all(targets.difficulty_of(r.headroom) == "easy" for r in kept)


@pytest.mark.parametrize("flags, words", [(["--noise-scale", "3"], "--noise-scale must be between 0 and 2"),
                                          (["--min-headroom", "1.5"], "min_headroom 1.5 is outside 0 to 1"),
                                          (["--difficulty", "brutal"], "difficulty 'brutal' is not one of")])
def test_the_cli_refuses_bad_controls_in_one_line(tmp_path, flags, words):
    result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--seed", "iris", "--out", str(tmp_path),
                             *flags], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and words in result.stderr and len(result.stderr.splitlines()) == 1


def test_the_cli_passes_the_controls_on(tmp_path):
    result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--seed", "iris", "--rng", "3", "--out",
                             str(tmp_path), "--noise-scale", "0.5", "--difficulty", "easy"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    spec = json.loads((tmp_path / summary["id"] / "task.json").read_text())["spec"]
    assert spec["noise"]["scale"] == 0.5
    assert summary["status"] == "rejected" or targets.difficulty_of(summary["headroom"]) == "easy"
