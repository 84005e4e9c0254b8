"""The scaffold-transfer report: policies as rows, scaffolds as columns, each cell's metrics and change against a baseline row."""

from __future__ import annotations

import csv
import io

from sandmle.errors import UsageError
from sandmle.evaluation.metrics import METRICS, cell_metrics
from sandmle.untrusted.spreadsheet import spreadsheet_safe


def _in_order(values) -> list[str]:
    return list(dict.fromkeys(values))


def _relative(value: float | None, reference: float | None) -> float | None:
    """The change against the baseline as a fraction (0.669 is +66.9%); None where the baseline is 0 or missing."""
    if value is None or reference is None or reference == 0:
        return None
    return (value - reference) / abs(reference)


def transfer_report(episodes: list[dict], *, baseline: str | None = None) -> dict:
    """Group campaign episodes into policy x scaffold cells; with a baseline policy, each cell's relative change."""
    policies = _in_order(episode["policy"] for episode in episodes)
    scaffolds = _in_order(episode["scaffold"] for episode in episodes)
    if baseline is not None and baseline not in policies:
        raise UsageError(f"baseline: {baseline!r} is not one of the campaign's policies ({', '.join(policies)})")
    cells = []
    for policy in policies:
        for scaffold in scaffolds:
            members = [e for e in episodes if e["policy"] == policy and e["scaffold"] == scaffold]
            if not members:
                continue
            cell = {"policy": policy, "scaffold": scaffold, **cell_metrics(members),
                    "episode_keys": [episode["key"] for episode in members]}
            cells.append(cell)
    index = {(cell["policy"], cell["scaffold"]): cell for cell in cells}
    for cell in cells:
        reference = index.get((baseline, cell["scaffold"])) if baseline is not None else None
        cell["relative"] = {
            name: (_relative(cell["metrics"][name]["mean"], reference["metrics"][name]["mean"]) if reference else None)
            for name in METRICS
        }
    return {"policies": policies, "scaffolds": scaffolds, "baseline": baseline, "metrics": list(METRICS),
            "cells": cells}


def _cell_text(cell: dict | None, metric: str) -> str:
    if cell is None:
        return "-"
    value = cell["metrics"][metric]
    text = f"{value['mean']:.3f}±{value['sem']:.3f}"
    relative = cell["relative"].get(metric)
    return text + (f" ({relative * 100:+.1f}%)" if relative is not None else "")


def report_table(report: dict, metric: str = "medal_rate") -> str:
    """The transfer table as text: one row per policy, one column per scaffold, mean±SEM (change vs the baseline)."""
    if metric not in report["metrics"]:
        raise UsageError(f"metric: {metric!r} is not one of {', '.join(report['metrics'])}")
    index = {(cell["policy"], cell["scaffold"]): cell for cell in report["cells"]}
    header = [f"{metric} (mean±SEM)", *report["scaffolds"]]
    rows = [[policy + (" [baseline]" if policy == report["baseline"] else ""),
             *(_cell_text(index.get((policy, scaffold)), metric) for scaffold in report["scaffolds"])]
            for policy in report["policies"]]
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    lines = ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def report_csv(report: dict) -> str:
    """One row per cell: policy, scaffold, n, and for every metric its mean, SEM and relative change."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["policy", "scaffold", "n", *(f"{name}_{part}" for name in report["metrics"]
                                                   for part in ("mean", "sem", "relative"))])
    for cell in report["cells"]:
        row = [spreadsheet_safe(cell["policy"]), spreadsheet_safe(cell["scaffold"]), cell["n"]]
        for name in report["metrics"]:
            value = cell["metrics"][name]
            row += [value["mean"], value["sem"], "" if cell["relative"][name] is None else cell["relative"][name]]
        writer.writerow(row)
    return buffer.getvalue()
