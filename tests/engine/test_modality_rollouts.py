"""The offline baseline engineer reaches a valid submission on a synthesized image task and a synthesized text task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.agents.policies.baseline import BaselinePolicy
from sandmle.episodes.runner import EpisodeConfig, run_episode
from sandmle.seeds.load import load_bundled_seed, load_csv_seed
from sandmle.synth import synthesize
from tests.engine.text_seeds import write_review_csv


def _image_task(out):
    return synthesize(load_bundled_seed("digits"), count=1, rng=1, out_dir=out, families=("blob_count",))[0]


def _text_task(out):
    seed = load_csv_seed(write_review_csv(out / "reviews.csv"), target="label", name="reviews")
    return synthesize(seed, count=1, rng=1, out_dir=out, families=("key_phrases",))[0]


@pytest.mark.parametrize("make_task", [_image_task, _text_task], ids=["image", "text"])
def test_baseline_policy_submits_a_valid_file_on_a_synthesized_task(make_task, tmp_path):
    task = make_task(tmp_path)
    assert task.status == "validated", task.reasons
    trajectory = run_episode(task.bundle_dir, scaffold="react", policy=BaselinePolicy(), config=EpisodeConfig(),
                             workdir=tmp_path / "work")
    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "answered"
    observations = "\n".join(turn["observation"] for turn in trajectory.turns if turn["role"] == "tool")
    assert "wrote /workdir/submission.csv" in observations
    assert trajectory.grade.valid_submission is True, trajectory.grade
    # The baseline reads the pixels or the words: it beats the task's constant-prediction rung of the ladder clearly
    # (the median milestone is set by learned references, which a 3-level baseline need not pass on every draw).
    grading = json.loads((Path(task.bundle_dir) / "private" / "grading.json").read_text())
    lower = trajectory.grade.is_lower_better
    margin = trajectory.grade.score - grading["ladder"]["baseline"]
    assert (-margin if lower else margin) > 0.05, (trajectory.grade, grading["ladder"])
