"""SandMLE's released layout: agent files plus evaluator.py printing its JSON contract, the answers in a separate folder.

Export writes <out>/<id>/public/{description.md, data/, sample_submission.csv, evaluator.py} and
<out>/<id>/private/answer.csv. Import accepts such a folder, or a flat one with answer.csv beside the agent's files:
answers are moved to our private/, and the source's evaluator.py, untrusted code, runs only inside the sandbox.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from sandmle.errors import UsageError
from sandmle.formats.bundle_io import PRIVATE_NAMES, imported_bundle
from sandmle.formats.grade_template import grade_source
from sandmle.grading import load_grading
from sandmle.metrics import get_metric

# The evaluator is called as `python evaluator.py SUBMISSION [ANSWERS]` (answers default: ../private/answer.csv).
EVALUATOR_MAIN = '''

MILESTONES = {milestones}


def main(argv):
    import json
    import sys
    from pathlib import Path

    answers_path = argv[2] if len(argv) > 2 else Path(__file__).resolve().parent.parent / "private" / "answer.csv"
    try:
        score = grade(pd.read_csv(argv[1]), pd.read_csv(answers_path))
    except InvalidSubmissionError as error:
        print(json.dumps({{"score": None, "error": str(error), **MILESTONES}}))
        return 1
    print(json.dumps({{"score": score, **MILESTONES}}))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv))
'''


def export_task(task_dir: Path, out_dir: Path) -> Path:
    from sandmle.evaluation.campaign import task_id_of

    task_dir = Path(task_dir)
    grading = load_grading(task_dir)
    task_id = task_id_of(task_dir)
    root = Path(out_dir) / task_id
    public, private = root / "public", root / "private"
    (public / "data").mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    for path in sorted((task_dir / "public").iterdir()):
        if path.is_file():
            in_root = path.name in ("description.md", "sample_submission.csv")
            shutil.copyfile(path, (public if in_root else public / "data") / path.name)
    shutil.copyfile(task_dir / "private" / "answers.csv", private / "answer.csv")
    # metric and ladder are our additions to the contract, so a re-import grades and ranks the same way.
    contract = {"is_lower_better": bool(grading["is_lower_better"]), "metric": grading["metric"],
                "ladder": grading.get("ladder") or {},
                **{f"{name}_threshold": float(grading["milestones"][name])
                   for name in ("gold", "silver", "bronze", "median")}}
    evaluator = grade_source(task_id, grading, get_metric(grading["metric"]).prediction)
    evaluator += EVALUATOR_MAIN.format(milestones=repr(contract))
    (public / "evaluator.py").write_text(evaluator, encoding="utf-8")
    return root


def _find_one(source: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        found = sorted(path for path in source.rglob(name) if path.is_file() and not path.is_symlink())
        if found:
            return found[0]
    return None


def evaluator_contract(evaluator: Path, sample: Path, answers: Path, *, timeout_s: float = 120.0) -> dict:
    """Run the source's evaluator on the sample submission inside the sandbox and read the JSON it prints."""
    from sandmle.sandbox import Limits, Sandbox

    with tempfile.TemporaryDirectory(prefix="sandmle-evaluator-") as scratch:
        # The step sees only these three files (read-only) and an empty workdir, never the host's folders.
        step_public = Path(scratch) / "public"
        step_public.mkdir()
        for path, name in ((evaluator, "evaluator.py"), (sample, "sample_submission.csv"), (answers, "answer.csv")):
            shutil.copyfile(path, step_public / name)
        workdir = Path(scratch) / "work"
        workdir.mkdir()
        sandbox = Sandbox(public_dir=step_public, workdir=workdir, limits=Limits(timeout_s=timeout_s))
        try:
            result = sandbox.run_python(
                "import runpy, sys\n"
                "sys.argv = ['evaluator.py', '/public/sample_submission.csv', '/public/answer.csv']\n"
                "try:\n    runpy.run_path('/public/evaluator.py', run_name='__main__')\nexcept SystemExit:\n    pass\n")
        finally:
            sandbox.close()
    for line in reversed(result.stdout.strip().splitlines()):
        try:
            contract = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(contract, dict):
            break
    else:
        raise UsageError(f"SRC: evaluator.py printed no JSON contract ({result.termination}): {result.stderr[-300:]}")
    missing = [key for key in ("is_lower_better", "gold_threshold", "silver_threshold", "bronze_threshold",
                               "median_threshold") if key not in contract]
    if missing:
        raise UsageError(f"SRC: evaluator.py's JSON lacks {', '.join(missing)}")
    return contract


def import_folder(source: Path, out_dir: Path, *, metric: str | None = None) -> Path:
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"SRC: {source} is not a folder")
    answers = _find_one(source, ("answer.csv", "answers.csv"))
    evaluator = _find_one(source, ("evaluator.py",))
    sample = _find_one(source, ("sample_submission.csv",))
    if answers is None or evaluator is None or sample is None:
        raise UsageError("SRC: a SandMLE folder needs answer.csv, evaluator.py and sample_submission.csv")
    contract = evaluator_contract(evaluator, sample, answers)
    metric_name = metric or contract.get("metric")
    if not metric_name:
        raise UsageError("--metric: the evaluator does not name its metric; give it")
    thresholds = {"is_lower_better": bool(contract["is_lower_better"]),
                  **{name: float(contract[f"{name}_threshold"]) for name in ("gold", "silver", "bronze", "median")}}
    agent_root = sample.parent
    with tempfile.TemporaryDirectory(prefix="sandmle-import-") as scratch:
        # Agent-visible files: everything under the sample's folder except answers, graders and private folders.
        public = Path(scratch) / "public"
        for path in sorted(agent_root.rglob("*")):
            relative = path.relative_to(agent_root)
            if (path.is_symlink() or not path.is_file() or path.name.lower() in PRIVATE_NAMES
                    or "private" in relative.parts[:-1]):
                continue
            flat = relative.name if relative.parts[0] == "data" else relative.as_posix()
            (public / flat).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, public / flat)
        description = public / "description.md"
        task_id = source.name
        return imported_bundle(Path(out_dir) / task_id, task_id=task_id, public_dir=public,
                               answers=pd.read_csv(answers, dtype=str, keep_default_na=False), metric_name=metric_name,
                               thresholds=thresholds, leaderboard_scores=None,
                               ladder=contract.get("ladder") if isinstance(contract.get("ladder"), dict) else None,
                               description=description.read_text() if description.is_file() else None,
                               source_format="sandmle")
