"""A synthesized task's own DNA, measured from its public training file, beside its seed's DNA with differences marked.

The spec carries the seed's DNA statistics; what the task's data really look like after domain mutation, the hidden
rule and noise is measured again here with the engine's `extract_dna`, so a reviewer sees what synthesis changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import Seed as EngineSeed
from tasks_app.tasks.charts import feature_columns, read_public_frame

# Relative change below which two numbers read as the same structure (rounding, a few noisy rows).
TOLERANCE = 0.05


@dataclass
class DnaRow:
    name: str
    seed_value: str
    task_value: str
    changed: bool


def task_dna(*, bundle_dir: str, target: str, task_type: str, metric: str, modality: str) -> dict:
    if modality == "image":
        return {}  # an image task's train.csv names image files; its pixels (the seed DNA's features) are not in it
    train = read_public_frame(bundle_dir, "train.csv", keep=(target,))
    if train is None or target not in train.columns:
        return {}
    frame = train[feature_columns(train, target=target) + [target]]
    seed = EngineSeed(name="task", frame=frame, target=target, task_type=task_type, metric=metric,
                      modality=modality, source="bundle")
    return extract_dna(seed).to_dict()


def _show(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(item) for item in value[:8]) + (", …" if len(value) > 8 else "") + "]"
    if isinstance(value, dict):
        return ", ".join(f"{key} {_show(item)}" for key, item in value.items() if item)
    return str(value)


def _differs(seed_value, task_value) -> bool:
    if isinstance(seed_value, (int, float)) and isinstance(task_value, (int, float)) \
            and not isinstance(seed_value, bool):
        scale = max(abs(seed_value), abs(task_value), 1e-9)
        return abs(seed_value - task_value) / scale > TOLERANCE
    if isinstance(seed_value, list) and isinstance(task_value, list):
        return len(seed_value) != len(task_value) or any(_differs(a, b) for a, b in zip(seed_value, task_value))
    return seed_value != task_value


def _feature_kinds(dna: dict) -> dict:
    kinds = dna.get("feature_kinds")
    if kinds:
        return kinds
    counts: dict[str, int] = {}
    for feature in dna.get("features", []):
        counts[feature.get("kind", "?")] = counts.get(feature.get("kind", "?"), 0) + 1
    return counts


def _by_column(dna: dict, names: list[str], statistic) -> str:
    """`column value` for each feature where `statistic(feature)` is not None, under its column's name when the names
    line up with the DNA's features (the DNA itself keeps none), else by position."""
    features = dna.get("features", [])
    names = names if len(names) == len(features) else [f"#{index}" for index in range(1, len(features) + 1)]
    shown = [f"{name} {_show(value)}".strip() for name, feature in zip(names, features)
             if (value := statistic(feature)) is not None]
    return ", ".join(shown) or "none"


def dna_comparison(seed_dna: dict, task_dna_data: dict, *, seed_names: list[str] = (),
                   task_names: list[str] = ()) -> list[DnaRow]:
    """Rows of structural statistics, seed beside task; `changed` marks what synthesis moved. With the feature columns'
    names (in the DNA's order), the per-feature rows name each column."""
    if not seed_dna or not task_dna_data:
        return []
    rows = []
    for key in ("modality", "task_type", "n_rows", "n_features", "n_classes", "class_balance", "missing_rate",
                "correlation_strength", "metric"):
        seed_value, task_value = seed_dna.get(key), task_dna_data.get(key)
        rows.append(DnaRow(key.replace("_", " "), _show(seed_value), _show(task_value), _differs(seed_value, task_value)))
    seed_kinds, task_kinds = _feature_kinds(seed_dna), _feature_kinds(task_dna_data)
    rows.append(DnaRow("feature kinds", _show(seed_kinds), _show(task_kinds),
                       {k: v for k, v in seed_kinds.items() if v} != {k: v for k, v in task_kinds.items() if v}))
    seed_modes = sorted(f.get("n_modes", 1) for f in seed_dna.get("features", []) if f.get("kind") == "numeric")
    task_modes = sorted(f.get("n_modes", 1) for f in task_dna_data.get("features", []) if f.get("kind") == "numeric")
    modes = lambda feature: feature.get("n_modes", 1) if feature.get("kind") == "numeric" else None  # noqa: E731
    rows.append(DnaRow("modes per numeric feature", _by_column(seed_dna, list(seed_names), modes),
                       _by_column(task_dna_data, list(task_names), modes), seed_modes != task_modes))
    seed_heavy = sum(bool(f.get("heavy_tailed")) for f in seed_dna.get("features", []))
    task_heavy = sum(bool(f.get("heavy_tailed")) for f in task_dna_data.get("features", []))
    heavy = lambda feature: "" if feature.get("heavy_tailed") else None  # noqa: E731
    rows.append(DnaRow("heavy-tailed features", f"{seed_heavy}: {_by_column(seed_dna, list(seed_names), heavy)}"
                       if seed_heavy else "0", f"{task_heavy}: {_by_column(task_dna_data, list(task_names), heavy)}"
                       if task_heavy else "0", seed_heavy != task_heavy))
    return rows
