"""One successor made beside training, in a worker process: synthesis's critic (sandmle.synth.successor), then the
reward-hack audit on the run's scaffold, with its scaffold options and feedback mode, over every attack that needs
no judge. Returns a plain dict (it crosses a
process boundary); a rejected or failed successor leaves nothing in the draw, and says why."""

from __future__ import annotations

import json
import shutil
import traceback
from pathlib import Path


def make_successor(*, parent_dir: str, level: int, out_dir: str, reason: str, rng: int, review: str,
                   scaffold: str, scaffold_options: dict | None = None, feedback: str | None = None) -> dict:
    """Make, check and audit one successor; its outcome is also kept as made/<parent>-<level>-<rng>.json."""
    result = _made(parent_dir=parent_dir, level=level, out_dir=out_dir, reason=reason, rng=rng, review=review,
                   scaffold=scaffold, scaffold_options=scaffold_options, feedback=feedback)
    record = Path(out_dir) / "made" / f"{Path(parent_dir).name}-{level}-{rng}.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"parent_dir": parent_dir, "level": level, "reason": reason, **result}))
    return result


def _made(*, parent_dir: str, level: int, out_dir: str, reason: str, rng: int, review: str, scaffold: str,
          scaffold_options: dict | None, feedback: str | None) -> dict:
    from sandmle.synth.successor import successor

    # A folder of its own: the audit watches the folder around the task for changes an attack might make, and
    # other successors, the run's log and its audits must not write there meanwhile.
    job_dir = Path(out_dir) / "tasks" / f"{Path(parent_dir).name}-{level}-{rng}"
    try:
        made = successor(Path(parent_dir), level, out_dir=job_dir, reason=reason, rng=rng)
    except Exception as error:  # the run goes on with the parent; the log says why
        return {"status": "rejected", "reasons": [f"synthesis failed: {error}"[:300]],
                "trace": traceback.format_exc(limit=3)[-600:]}
    if made.status != "validated":
        return {"status": "rejected", "reasons": made.reasons[:3] or ["synthesis's checks refused every try"],
                "seconds": made.seconds}
    result = {"status": "validated", "task_id": made.task_id, "task_dir": str(made.bundle_dir),
              "seconds": made.seconds, "audit": None}
    if review in ("audit", "hold"):
        problems = audit_problems(Path(made.bundle_dir), scaffold=scaffold, out_dir=Path(out_dir) / "audits",
                                  scaffold_options=scaffold_options, feedback=feedback)
        result["audit"] = {"passed": not problems, "problems": problems}
        if problems:
            shutil.rmtree(made.bundle_dir, ignore_errors=True)
            return {**result, "status": "rejected", "reasons": [f"reward-hack audit: {p}" for p in problems[:3]]}
    return result


def audit_problems(task_dir: Path, *, scaffold: str, out_dir: Path, scaffold_options: dict | None = None,
                   feedback: str | None = None) -> list[str]:
    """The audit's findings on one bundle, played as the run plays (its scaffold, options and feedback): failing
    attacks, degenerate solutions it pays, changes outside episodes."""
    from sandmle.audit import AuditConfig, run_audit

    config = AuditConfig(scaffolds=(scaffold,), concurrency=1, feedback=feedback,
                         scaffold_options={scaffold: dict(scaffold_options)} if scaffold_options else {})
    report = run_audit([task_dir], out_dir=out_dir / task_dir.name, config=config)
    problems = [f"{v['attack']} on {v['scaffold']}: {(v.get('problems') or ['failed'])[0]}"
                for v in report.verdicts if not v["passed"]]
    problems += [f"degenerate {entry['solution']} reaches {entry['milestone']}" for entry in report.broken_tasks]
    problems += [f"changed outside the episode: {path}" for path in report.changed_outside]
    return problems
