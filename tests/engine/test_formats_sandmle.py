"""SandMLE's released layout: our export runs under the authors' exact call and listing, and a task built by hand in
their layout, with an evaluator written to their contract, imports with its answers out of the agent's reach."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sandmle.errors import UsageError
from sandmle.formats.sandmle_layout import ID_LIST_FILE, NOTE_FILE, export_task, import_folder
from sandmle.sandbox import Sandbox
from sandmle.tasks.grading import grade_submission
from tests.engine.rollout_bundles import make_bundle

SEARCH_FOR_ANSWERS = """
import os
found = [os.path.join(d, f) for top in ('/public', '/workdir', '/tmp') for d, _, files in os.walk(top) for f in files
         if f in ('answer.csv', 'answers.csv', 'evaluator.py')]
print('FOUND', found)
"""


def their_call(public: Path, submission: Path) -> subprocess.CompletedProcess:
    """SynScoreTool.call (examples/deepresearch/deepresearch_tools.py): this argv, cwd the task's public folder."""
    # Their command names `python`; ours is the test's interpreter, found first on PATH.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    cmd = ["python", "evaluator.py", "--submission_path", str(submission)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=public, env=env, timeout=120)


def their_task_list(data_root: Path) -> list[str]:
    """prepare_train_data.py's listing: folders with prepared/public/description.md, kept if in the id list."""
    ok_ids = {str(item) for item in json.loads((data_root / ID_LIST_FILE).read_text())}
    return [entry.name for entry in sorted(data_root.iterdir())
            if entry.is_dir() and (entry / "prepared" / "public" / "description.md").exists() and entry.name in ok_ids]


def test_export_runs_under_their_exact_call_and_listing(tmp_path):
    task_dir = make_bundle(tmp_path / "tasks", kind="binary", rows=80)
    other = make_bundle(tmp_path / "tasks", kind="regression", rows=60)
    out = tmp_path / "export"
    public = export_task(task_dir, out)
    export_task(other, out)
    assert public == out / task_dir.name / "prepared" / "public"
    assert {path.name for path in public.iterdir()} == {"description.md", "train.csv", "test.csv",
                                                        "sample_submission.csv", "evaluator.py", "answer.csv"}
    assert their_task_list(out) == sorted([task_dir.name, other.name])
    note = (out / NOTE_FILE).read_text()
    assert "answer.csv" in note and "can read them" in note and "never" in note

    done = their_call(public, public / "sample_submission.csv")
    assert done.returncode == 0, done.stderr
    contract = json.loads(done.stdout)  # SynScoreTool parses the whole stdout as one JSON object
    grading = json.loads((task_dir / "private" / "grading.json").read_text())
    assert contract["score"] == grade_submission(task_dir, public / "sample_submission.csv").score == 0.5
    assert contract["is_lower_better"] is False
    assert {name: contract[f"{name}_threshold"] for name in grading["milestones"]} == grading["milestones"]
    assert contract["metric"] == "roc_auc" and contract["ladder"] == grading["ladder"]

    # A better submission from elsewhere scores as our grader does.
    answers = pd.read_csv(task_dir / "private" / "answers.csv")
    better = tmp_path / "elsewhere" / "submission.csv"
    better.parent.mkdir()
    pd.DataFrame({"id": answers["id"], "label": np.where(answers["label"] == "yes", 0.8, 0.2)}).to_csv(better,
                                                                                                      index=False)
    done = their_call(public, better)
    assert done.returncode == 0 and json.loads(done.stdout)["score"] == grade_submission(task_dir, better).score

    # An invalid file: a non-zero exit, the reason on stderr, nothing on stdout (their tool shows both).
    broken = tmp_path / "elsewhere" / "broken.csv"
    pd.DataFrame({"id": answers["id"]}).to_csv(broken, index=False)
    done = their_call(public, broken)
    assert done.returncode != 0 and "expected exactly the columns" in done.stderr and done.stdout == ""
    assert their_call(public, tmp_path / "missing.csv").returncode != 0

    # The evaluator also finds answer.csv in its working directory when the answers are kept apart from it.
    apart = tmp_path / "apart"
    apart.mkdir()
    (apart / "answer.csv").write_bytes((public / "answer.csv").read_bytes())
    (public / "answer.csv").unlink()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["python", str(public / "evaluator.py"), "--submission_path", str(better)],
                          capture_output=True, text=True, cwd=apart, env=env, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout)["score"] == grade_submission(task_dir, better).score


# An evaluator as SandMLE's synthetic tasks carry one: their call only (no positional path), answer.csv read from the
# working directory, RMSE, their five keys and no metric name.
HAND_EVALUATOR = textwrap.dedent('''
    import argparse, json, sys
    import numpy as np
    import pandas as pd

    parser = argparse.ArgumentParser()
    parser.add_argument("--submission_path", required=True)
    args = parser.parse_args()
    answers = pd.read_csv("answer.csv")
    try:
        submission = pd.read_csv(args.submission_path)
        merged = answers.merge(submission, on="id", suffixes=("", "_pred"), validate="one_to_one")
        if len(merged) != len(answers):
            raise ValueError("ids do not match")
        score = float(np.sqrt(np.mean((merged["price"] - merged["price_pred"]) ** 2)))
    except Exception as error:
        print(f"invalid submission: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"score": score, "is_lower_better": True, "gold_threshold": 0.5, "silver_threshold": 0.8,
                      "bronze_threshold": 1.0, "median_threshold": 2.0}))
''')


def hand_built_task(root: Path, task_id: str = "house-prices-syn") -> Path:
    rng = np.random.default_rng(0)
    public = root / task_id / "prepared" / "public"
    public.mkdir(parents=True)
    x = rng.normal(size=80)
    pd.DataFrame({"id": range(60), "x": x[:60], "price": 2 * x[:60] + 1}).to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id": range(60, 80), "x": x[60:]}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": range(60, 80), "price": 0.0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": range(60, 80), "price": 2 * x[60:] + 1}).to_csv(public / "answer.csv", index=False)
    (public / "description.md").write_text("# House prices\nPredict price from x. Metric: RMSE.\n")
    (public / "evaluator.py").write_text(HAND_EVALUATOR)
    (root / ID_LIST_FILE).write_text(json.dumps([task_id]))
    return root / task_id


def test_a_hand_built_task_in_their_layout_imports_and_its_answers_leave_the_agent_files(tmp_path):
    task = hand_built_task(tmp_path / "syn")
    public = task / "prepared" / "public"
    assert their_task_list(tmp_path / "syn") == [task.name]
    assert their_call(public, public / "sample_submission.csv").returncode == 0
    with pytest.raises(UsageError, match="--metric"):
        import_folder(task, tmp_path / "imported")

    imported = import_folder(task, tmp_path / "imported", metric="rmse")
    assert imported == tmp_path / "imported" / "house-prices-syn"
    assert sorted(path.name for path in (imported / "public").iterdir()) == [
        "description.md", "sample_submission.csv", "test.csv", "train.csv"]
    grading = json.loads((imported / "private" / "grading.json").read_text())
    assert grading["metric"] == "rmse" and grading["is_lower_better"] is True
    assert grading["milestones"] == {"gold": 0.5, "silver": 0.8, "bronze": 1.0, "median": 2.0}
    workdir = tmp_path / "work"
    workdir.mkdir()
    sandbox = Sandbox(public_dir=imported / "public", workdir=workdir)
    try:
        step = sandbox.run_python(SEARCH_FOR_ANSWERS)
    finally:
        sandbox.close()
    assert "FOUND []" in step.stdout, step.stdout + step.stderr
    perfect = tmp_path / "perfect.csv"
    pd.read_csv(public / "answer.csv").to_csv(perfect, index=False)
    report = grade_submission(imported, perfect)
    assert report.score == 0.0 and report.gold_medal
    # The public folder itself (SynScoreTool's working directory) imports the same task.
    again = import_folder(public, tmp_path / "again", metric="rmse")
    assert again.name == "house-prices-syn"


def test_an_evaluator_that_rejects_the_sample_or_prints_bad_numbers_is_refused(tmp_path):
    task = hand_built_task(tmp_path / "syn")
    evaluator = task / "prepared" / "public" / "evaluator.py"
    evaluator.write_text(HAND_EVALUATOR.replace('"gold_threshold": 0.5', '"gold_threshold": "soon"'))
    with pytest.raises(UsageError, match="gold_threshold"):
        import_folder(task, tmp_path / "imported", metric="rmse")
    evaluator.write_text(HAND_EVALUATOR.replace('answers = pd.read_csv("answer.csv")',
                                                'sys.exit("cannot score without a GPU")'))
    with pytest.raises(UsageError, match="exited 1: cannot score without a GPU"):
        import_folder(task, tmp_path / "imported", metric="rmse")
    assert not (tmp_path / "imported").exists() or not any((tmp_path / "imported").iterdir())


def test_export_then_import_gives_the_same_report(tmp_path):
    task_dir = make_bundle(tmp_path / "tasks", kind="regression", rows=80)
    public = export_task(task_dir, tmp_path / "export")
    imported = import_folder(public.parent.parent, tmp_path / "imported")
    task = json.loads((imported / "task.json").read_text())
    assert task["imported"] is True and task["source_format"] == "sandmle" and task["task_id"] == task_dir.name
    submission = public / "sample_submission.csv"
    assert grade_submission(imported, submission).to_dict() == grade_submission(task_dir, submission).to_dict()
