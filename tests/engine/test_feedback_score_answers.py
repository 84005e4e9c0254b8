"""feedback score_answers, SandMLE's Score tool as its authors use it: graded on the real answers, the reward taken
from the last valid Score output the agent saw (not the file left at the end); feedback score keeps the public split
and rewards the final file."""

from __future__ import annotations

import json

import pytest

from sandmle.episodes.runner import EpisodeConfig, run_episode
from sandmle.tasks import grading
from tests.engine.rollout_bundles import COPY_SAMPLE, ScriptedPolicy, make_bundle

SCORE_CALL = '<think>grade it</think>\n<tool_call>\n{"name": "Score", "arguments": {"competition_id": "t"}}\n</tool_call>'
BREAK_FILE = "open('/workdir/submission.csv', 'w').write('nothing useful\\n')\nprint('overwritten')\n"


def python_call(code: str) -> str:
    return f"<think>run</think>\n<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>"


def episode(task_dir, workdir, feedback: str) -> dict:
    policy = ScriptedPolicy([SCORE_CALL, python_call(COPY_SAMPLE), SCORE_CALL, python_call(BREAK_FILE), SCORE_CALL,
                             "<think>done</think>\n<answer>submission</answer>"])
    config = EpisodeConfig(feedback=feedback, max_turns=8, scaffold_options={"dialect": "sandmle"})
    return run_episode(task_dir, scaffold="react", policy=policy, config=config, workdir=workdir).to_dict()


def shown_scores(trajectory: dict) -> list:
    texts = [turn["observation"] for turn in trajectory["turns"] if turn["role"] == "tool" and turn["kind"] == "score"]
    return [json.loads(text.split("Details: ", 1)[1])["score_primary (main competition metric for current code)"]
            if "Details: " in text else None for text in texts]


@pytest.mark.parametrize("kind", ["binary", "regression"])
def test_score_answers_pays_the_last_valid_score_output_on_the_real_answers(tmp_path, kind):
    task_dir = make_bundle(tmp_path, kind=kind)
    (tmp_path / "sample").mkdir()
    (tmp_path / "sample" / "submission.csv").write_bytes((task_dir / "public" / "sample_submission.csv").read_bytes())
    real = grading.grade_submission(task_dir, tmp_path / "sample" / "submission.csv", split="private")
    public = grading.grade_submission(task_dir, tmp_path / "sample" / "submission.csv", split="public")

    answers = episode(task_dir, tmp_path / "answers", "score_answers")
    assert answers["error"] is None and answers["feedback"] == "score_answers"
    assert shown_scores(answers) == [None, real.score, None]  # no file, the sample's real score, the broken file
    assert answers["grade"]["valid_submission"] is False  # the file left at the end
    assert answers["extra"]["reward_from"] == {"rule": "last_valid_score", "score_call": 1, "score": real.score,
                                               "milestone": real.milestone}
    assert answers["rewards"]["dense"]["components"]["valid"] == pytest.approx(0.2)

    public_run = episode(task_dir, tmp_path / "public", "score")
    assert shown_scores(public_run) == [None, public.score, None]
    assert "reward_from" not in public_run["extra"]
    assert public_run["rewards"]["dense"]["components"]["valid"] == 0.0  # the final file pays, and it is broken


def test_score_answers_without_a_valid_score_output_pays_no_submission(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([python_call(COPY_SAMPLE), "<think>done</think>\n<answer>submission</answer>"])
    config = EpisodeConfig(feedback="score_answers", max_turns=4, scaffold_options={"dialect": "sandmle"})
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=config, workdir=tmp_path / "w").to_dict()
    assert trajectory["grade"]["valid_submission"] is True  # a valid file, never scored: the agent saw nothing
    assert trajectory["extra"]["reward_from"]["score_call"] is None
    assert trajectory["rewards"]["dense"]["components"]["valid"] == 0.0
