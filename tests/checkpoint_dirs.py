"""A directory shaped as a save_pretrained checkpoint (a config.json), for launch tests that never load the model:
forms and the API refuse a checkpoint path that is no such directory."""

from __future__ import annotations

import json
from pathlib import Path


def checkpoint_dir(root: Path | str, name: str = "any") -> str:
    path = Path(root) / "models" / name
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps({"model_type": "qwen3"}))
    return str(path)
