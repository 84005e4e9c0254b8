"""A training run's directory: metrics.jsonl, the step's trajectories, checkpoint-<step>/ and its curriculum state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CURRICULUM_FILE = "curriculum-rank{rank}.json"


def last_checkpoint(output_dir: Path) -> Path | None:
    """The checkpoint-<step>/ with the highest step that finished saving (TRL writes trainer_state.json last)."""
    found = [p for p in Path(output_dir).glob("checkpoint-*") if p.name.rsplit("-", 1)[1].isdigit()
             and (p / "trainer_state.json").is_file()]
    return max(found, key=lambda p: int(p.name.rsplit("-", 1)[1])) if found else None


class RunFiles:
    def __init__(self, output_dir: Path) -> None:
        self.root = Path(output_dir)
        self.metrics = self.root / "metrics.jsonl"
        self.trajectories = self.root / "trajectories"

    def start(self, config: Any, *, resumed_step: int) -> None:
        """A resumed run forgets the lines and trajectories of steps after its checkpoint (they will be redone)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.trajectories.mkdir(exist_ok=True)
        if not self.metrics.exists():
            return
        kept = [line for line in self.metrics.read_text().splitlines()
                if line.strip() and resumed_step and json.loads(line).get("step", 0) <= resumed_step]
        self.metrics.write_text("".join(line + "\n" for line in kept))

    def trajectory_path(self, step: int, prefix: str = "step") -> Path:
        return self.trajectories / f"{prefix}-{step:06d}.jsonl"

    def write_trajectories(self, step: int, records: list[dict], *, prefix: str = "step") -> Path:
        path = self.trajectory_path(step, prefix)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
        return path

    def append_metrics(self, line: dict) -> None:
        with self.metrics.open("a") as out:
            out.write(json.dumps(line) + "\n")

    def write_curriculum(self, checkpoint: Path, state: dict, *, rank: int) -> None:
        (Path(checkpoint) / CURRICULUM_FILE.format(rank=rank)).write_text(json.dumps(state))

    def read_curriculum(self, checkpoint: Path, *, rank: int) -> dict:
        return json.loads((Path(checkpoint) / CURRICULUM_FILE.format(rank=rank)).read_text())

    def existing_checkpoints(self) -> list[str]:
        found = [p for p in self.root.glob("checkpoint-*") if p.name.rsplit("-", 1)[1].isdigit()]
        return [str(p) for p in sorted(found, key=lambda p: int(p.name.rsplit("-", 1)[1]))]
