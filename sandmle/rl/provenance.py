"""What a checkpoint was trained with (scaffold, its options, feedback, preset), written into its folder so that a
checkpoint carries it wherever it goes: the run page, evaluation campaigns, the studio's labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROVENANCE_FILE = "sandmle_training.json"


def training_provenance(config: Any) -> dict[str, Any]:
    """The run's scaffold, its resolved options (defaults filled in), feedback and preset; `saw_test_scores` is true
    when the agent's Score tool graded against the real answers (feedback score_answers)."""
    from sandmle.agents.scaffolds.options import resolve_scaffold_options

    values = config.values
    scaffold = values.get("scaffold", "react")
    settings, _ = resolve_scaffold_options(scaffold, values.get("scaffold_options") or {})
    feedback = values.get("feedback")
    return {"kind": config.kind, "scaffold": scaffold, "scaffold_options": settings, "feedback": feedback,
            "saw_test_scores": feedback == "score_answers", "preset": values.get("preset"),
            "reward": values.get("reward")}


def write_provenance(checkpoint: Path, provenance: dict[str, Any]) -> None:
    (Path(checkpoint) / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=1, sort_keys=True) + "\n")


def read_provenance(checkpoint: Path | str) -> dict[str, Any] | None:
    """The provenance a checkpoint folder holds (a policy spec hf:PATH is read as PATH); None when it has none."""
    path = Path(str(checkpoint).removeprefix("hf:")) / PROVENANCE_FILE
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None
