"""SandMLE's layout: export keeps the answers apart, import moves them out of agent files and runs evaluator.py sandboxed."""

from __future__ import annotations

import json
import subprocess
import sys

from sandmle.formats.sandmle_layout import export_task, import_folder
from sandmle.grading import grade_submission
from sandmle.sandbox import Sandbox
from tests.engine.rollout_bundles import make_bundle

SEARCH_FOR_ANSWERS = """
import os
found = [os.path.join(d, f) for top in ('/public', '/workdir', '/tmp') for d, _, files in os.walk(top) for f in files
         if f in ('answer.csv', 'answers.csv', 'evaluator.py')]
print('FOUND', found)
"""


def test_export_writes_the_layout_and_its_evaluator_prints_the_contract(tmp_path):
    task_dir = make_bundle(tmp_path / "tasks", kind="binary", rows=80)
    root = export_task(task_dir, tmp_path / "export")
    public = root / "public"
    assert {path.name for path in public.iterdir()} == {"description.md", "data", "sample_submission.csv",
                                                        "evaluator.py"}
    assert (root / "private" / "answer.csv").is_file() and not list(public.rglob("answer*.csv"))
    done = subprocess.run([sys.executable, str(public / "evaluator.py"), str(public / "sample_submission.csv")],
                          capture_output=True, text=True, timeout=120)
    contract = json.loads(done.stdout.strip().splitlines()[-1])
    grading = json.loads((task_dir / "private" / "grading.json").read_text())
    assert contract["score"] == grade_submission(task_dir, public / "sample_submission.csv").score == 0.5
    assert contract["is_lower_better"] is False
    assert {name: contract[f"{name}_threshold"] for name in grading["milestones"]} == grading["milestones"]


def test_import_of_a_flat_folder_never_exposes_answer_csv_to_a_sandboxed_step(tmp_path):
    task_dir = make_bundle(tmp_path / "tasks", kind="regression", rows=80)
    root = export_task(task_dir, tmp_path / "export")
    flat = tmp_path / "flat" / "house-prices"  # SandMLE's releases keep answer.csv beside the agent's files
    flat.mkdir(parents=True)
    for path in (root / "public").rglob("*"):
        if path.is_file():
            (flat / path.name).write_bytes(path.read_bytes())
    (flat / "answer.csv").write_bytes((root / "private" / "answer.csv").read_bytes())

    imported = import_folder(flat, tmp_path / "imported")
    assert json.loads((imported / "task.json").read_text())["imported"] is True
    assert sorted(path.name for path in (imported / "public").iterdir()) == [
        "description.md", "sample_submission.csv", "test.csv", "train.csv"]
    workdir = tmp_path / "work"
    workdir.mkdir()
    sandbox = Sandbox(public_dir=imported / "public", workdir=workdir)
    try:
        step = sandbox.run_python(SEARCH_FOR_ANSWERS)
    finally:
        sandbox.close()
    assert "FOUND []" in step.stdout, step.stdout + step.stderr

    submission = root / "public" / "sample_submission.csv"
    ours, theirs = grade_submission(imported, submission).to_dict(), grade_submission(task_dir, submission).to_dict()
    assert ours.pop("competition_id") == "house-prices" and theirs.pop("competition_id") == "regression-0"
    assert ours == theirs
