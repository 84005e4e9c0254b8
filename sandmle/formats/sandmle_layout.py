"""SandMLE's released layout (github Tonyzhou98/SandMLE, examples/deepresearch): export our bundles to it, import it.

A task is `<root>/<task_id>/prepared/public/` holding description.md, the data files at its top, sample_submission.csv,
evaluator.py and answer.csv; the root holds the id list `ok_competitions_sanity.json`. Their SynScoreTool runs
`python evaluator.py --submission_path PATH` with the working directory set to that folder and reads exit status 0
plus one JSON object (score, is_lower_better, gold/silver/bronze/median_threshold) on stdout, or a non-zero status
with the reason on stderr. In that layout the answers sit in the folder their agent reads, which is the released
code's choice; our sandbox never shows them to an agent: an import moves them to private/, and the source's
evaluator.py, untrusted code, runs only inside the sandbox.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from sandmle.untrusted import bounded_json
from sandmle.errors import UsageError
from sandmle.formats.bundle_io import PRIVATE_NAMES, imported_bundle
from sandmle.formats.grade_template import grade_source
from sandmle.formats.source_files import PublicFiles, SourceFolder, SourceLimits, finite_number, flag, plain_id
from sandmle.tasks.grading import load_grading
from sandmle.tasks.metrics import get_metric

# The id list their prepare_train_data.py reads (SANDMLE_OK_LIST), and the note an export leaves beside it.
ID_LIST_FILE = "ok_competitions_sanity.json"
NOTE_FILE = "SANDMLE_EXPORT_NOTE.md"
CONTRACT_KEYS = ("is_lower_better", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold")
EXPORT_NOTE = """# Exported by SandMLE Studio in SandMLE's released layout

Each task is `<task_id>/prepared/public/` with description.md, the data files, sample_submission.csv, evaluator.py
and answer.csv; `{id_list}` lists the task ids. Score a submission the way SandMLE's SynScoreTool does, from inside
that folder:

    python evaluator.py --submission_path PATH

Exit status 0 and one JSON object on stdout (score, is_lower_better, gold/silver/bronze/median_threshold, plus
SandMLE Studio's metric and ladder), or a non-zero status with the reason on stderr.

WARNING: in this layout the answers (answer.csv) sit in the very folder the agent reads its data from, so an agent
that looks can read them. That is the released code's choice, kept here so its training code runs unchanged. SandMLE
Studio's own sandbox never does this: its agents see only the public files, and grading reads the answers outside.
Run agents on this export only where reading answer.csv cannot pay, or move answer.csv out and point the evaluator at
it through its working directory.
"""

# Appended to grade_source(): their call, their exit codes, one JSON object on stdout and nothing else there.
EVALUATOR_MAIN = '''

CONTRACT = {contract}


def main():
    import argparse
    import json
    import sys
    from pathlib import Path

    parser = argparse.ArgumentParser(description="Score a submission for this task (SandMLE's evaluator contract).")
    parser.add_argument("--submission_path", required=True)
    args = parser.parse_args()
    # The answers sit beside this file in SandMLE's layout; a caller that keeps them apart runs from their folder.
    beside = Path(__file__).resolve().parent / "answer.csv"
    answers_path = beside if beside.is_file() else Path("answer.csv")
    try:
        submission = pd.read_csv(args.submission_path)
    except (OSError, ValueError) as error:
        print("invalid submission: " + str(error).splitlines()[0], file=sys.stderr)
        return 1
    try:
        score = grade(submission, pd.read_csv(answers_path))
    except InvalidSubmissionError as error:
        print("invalid submission: " + str(error), file=sys.stderr)
        return 1
    print(json.dumps({{"score": score, **CONTRACT}}))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
'''

# Run inside the sandbox with the staged task folder as the working directory: their exact call, reported as JSON.
EVALUATOR_STEP = """
import json, os, subprocess, sys
done = subprocess.run([sys.executable, "evaluator.py", "--submission_path", os.path.abspath("sample_submission.csv")],
                      capture_output=True, text=True)
print("\\n" + json.dumps({"exit": done.returncode, "stdout": done.stdout[-65536:], "stderr": done.stderr[-2000:]}))
"""


def export_task(task_dir: Path, out_dir: Path) -> Path:
    """Write <out>/<id>/prepared/public/ in SandMLE's layout, add the id to the id list; return the public folder."""
    from sandmle.evaluation.campaign import task_id_of

    task_dir, out_dir = Path(task_dir), Path(out_dir)
    grading = load_grading(task_dir)
    task_id = plain_id(task_id_of(task_dir), field_name="task id")
    public = out_dir / task_id / "prepared" / "public"
    public.mkdir(parents=True, exist_ok=True)
    for path in sorted((task_dir / "public").iterdir()):
        if path.is_symlink():
            continue
        if path.is_dir():
            shutil.copytree(path, public / path.name, dirs_exist_ok=True, symlinks=True)
        elif path.is_file():
            shutil.copyfile(path, public / path.name)
    shutil.copyfile(task_dir / "private" / "answers.csv", public / "answer.csv")
    # metric and ladder are our additions to the contract, so a re-import grades and ranks the same way.
    contract = {"is_lower_better": bool(grading["is_lower_better"]),
                **{f"{name}_threshold": float(grading["milestones"][name])
                   for name in ("gold", "silver", "bronze", "median")},
                "metric": grading["metric"], "ladder": grading.get("ladder") or {}}
    evaluator = grade_source(task_id, grading, get_metric(grading["metric"]).prediction)
    evaluator += EVALUATOR_MAIN.format(contract=repr(contract))
    (public / "evaluator.py").write_text(evaluator, encoding="utf-8")
    _add_to_id_list(out_dir, task_id)
    (out_dir / NOTE_FILE).write_text(EXPORT_NOTE.format(id_list=ID_LIST_FILE), encoding="utf-8")
    return public


def _add_to_id_list(out_dir: Path, task_id: str) -> None:
    path = out_dir / ID_LIST_FILE
    ids = set(json.loads(path.read_text())) if path.is_file() else set()
    path.write_text(json.dumps(sorted(ids | {task_id}), indent=2) + "\n", encoding="utf-8")


def _task_folder(source: Path, limits: SourceLimits | None) -> tuple[SourceFolder, str]:
    """The task's public folder and id: SRC is `<id>/` (holding prepared/public), that folder, or a flat folder."""
    folder = SourceFolder(source, label="SRC", limits=limits)
    if folder.is_dir("prepared/public"):
        return folder.sub("prepared/public"), plain_id(folder.root.name, field_name="SRC's folder name")
    root = folder.root
    if root.name == "public" and root.parent.name == "prepared":
        return folder, plain_id(root.parent.parent.name, field_name="SRC's task folder name")
    return folder, plain_id(root.name, field_name="SRC's folder name")


def _parse_contract(stdout: str) -> dict | None:
    """Their tool reads the whole stdout as one JSON object; a last JSON line after other output is accepted too."""
    candidates = [stdout.strip()] + list(reversed(stdout.strip().splitlines()))
    for text in candidates:
        try:
            contract = bounded_json.loads(text, allow_nan=True)  # the evaluator's own output: anything at all
        except ValueError:
            continue
        if isinstance(contract, dict):
            return contract
    return None


def evaluator_contract(task_folder: Path, *, timeout_s: float = 120.0) -> dict:
    """Run the task's evaluator.py on its sample submission inside the sandbox, as SynScoreTool calls it.

    task_folder is our own staged copy of the source's public folder (evaluator.py, answer.csv and the data at its
    top); the step works in a copy of it, so the evaluator finds answer.csv beside itself and in its working directory.
    """
    from sandmle.sandbox import Limits, Sandbox

    with tempfile.TemporaryDirectory(prefix="sandmle-evaluator-") as scratch:
        empty, workdir = Path(scratch) / "public", Path(scratch) / "work"
        empty.mkdir()
        shutil.copytree(task_folder, workdir)
        sandbox = Sandbox(public_dir=empty, workdir=workdir, limits=Limits(timeout_s=timeout_s))
        try:
            result = sandbox.run_python(EVALUATOR_STEP)
        finally:
            sandbox.close()
    report = _parse_contract(result.stdout.strip().splitlines()[-1]) if result.stdout.strip() else None
    if report is None or "exit" not in report:
        raise UsageError(f"SRC: evaluator.py could not be run ({result.termination}): {result.stderr[-300:]}")
    if report["exit"] != 0:
        reason = (report.get("stderr") or report.get("stdout") or "").strip().splitlines()
        raise UsageError(f"SRC: evaluator.py --submission_path sample_submission.csv exited {report['exit']}: "
                         f"{reason[-1][:300] if reason else 'no reason given'}")
    contract = _parse_contract(report.get("stdout") or "")
    if contract is None:
        raise UsageError("SRC: evaluator.py printed no JSON object on stdout")
    missing = [key for key in CONTRACT_KEYS if key not in contract]
    if missing:
        raise UsageError(f"SRC: evaluator.py's JSON lacks {', '.join(missing)}")
    return contract


def import_folder(source: Path, out_dir: Path, *, metric: str | None = None,
                  limits: SourceLimits | None = None) -> Path:
    """A task in SandMLE's layout as a bundle in out_dir/<id>: answers to private/, evaluator run only sandboxed."""
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"SRC: {source} is not a folder")
    folder, task_id = _task_folder(source, limits)
    answers_name = next((name for name in ("answer.csv", "answers.csv") if folder.is_file(name)), None)
    if answers_name is None or not folder.is_file("evaluator.py") or not folder.is_file("sample_submission.csv"):
        raise UsageError("SRC: a SandMLE task folder needs answer.csv, evaluator.py and sample_submission.csv at the "
                         "top of <id>/prepared/public/")
    with tempfile.TemporaryDirectory(prefix="sandmle-import-") as scratch:
        # One read of the untrusted folder into our own copy; everything after works on that copy.
        staged = Path(scratch) / "task"
        for relative in folder.files():
            if "private" not in PurePosixPath(relative).parts[:-1]:
                folder.copy_file(relative, staged / relative)
        if answers_name != "answer.csv":
            shutil.copyfile(staged / answers_name, staged / "answer.csv")
        contract = evaluator_contract(staged)
        metric_name = metric or contract.get("metric")
        if not metric_name:
            raise UsageError("--metric: the evaluator does not name its metric; give it")
        thresholds = {"is_lower_better": flag(contract["is_lower_better"], field_name="evaluator's is_lower_better"),
                      **{name: finite_number(contract[f"{name}_threshold"], field_name=f"evaluator's {name}_threshold")
                         for name in ("gold", "silver", "bronze", "median")}}
        copy = SourceFolder(staged, label="SRC", limits=limits)
        public = PublicFiles()
        for relative in copy.files():
            if PurePosixPath(relative).name.lower() not in PRIVATE_NAMES:
                public.add(copy, relative)
        description = copy.read_text("description.md") if copy.is_file("description.md") else None
        return imported_bundle(out_dir, task_id=task_id, public=public,
                               answers=copy.read_csv("answer.csv", dtype=str, keep_default_na=False),
                               metric_name=metric_name, thresholds=thresholds, leaderboard_scores=None,
                               ladder=contract.get("ladder"), description=description, source_format="sandmle")
