"""Dense against sparse (and any other scheme) over the same episodes: every episode stores each scheme's total and
parts, so a batch or a campaign shows what each scheme pays, how often, and how much GRPO signal it would leave.

A group is the episodes GRPO normalises together (one task's samples in a batch; one policy, scaffold and task over
seeds in a campaign): a group whose totals are all equal has no spread, so no advantage and no learning signal.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Iterable

# Totals of the shipped schemes lie in [0, 1]: ten bins of 0.1 (anything outside falls in the end bins).
HISTOGRAM_BINS = 10
# The paper's two schemes first, any others (rubric, dense+rubric) after them by name.
LEADING_SCHEMES = ("dense", "sparse")
SPREAD_TOLERANCE = 1e-9


def _ordered(names: set[str]) -> list[str]:
    return [name for name in LEADING_SCHEMES if name in names] + sorted(names - set(LEADING_SCHEMES))


def _bin(total: float) -> int:
    # Rounded first: 0.2 + 0.5 + 0.1 is 0.7999999999999999 in floats, and belongs with 0.8.
    return min(max(int(math.floor(round(total * HISTOGRAM_BINS, 9))), 0), HISTOGRAM_BINS - 1)


def scheme_comparison(episodes: Iterable[tuple[Hashable, dict]]) -> dict:
    """Each scheme's mean total (± SEM), share of episodes it pays for their outcome (beyond the format part, which
    every scheme pays alike), share of groups left with no
    spread, mean of each part, and a histogram of totals, over `episodes`: (group, rewards) pairs, `rewards` as a
    trajectory stores it ({scheme: {"total": float, "components": {part: float}}}). {} when no episode has rewards."""
    totals: dict[str, list[float]] = {}
    outcome_paid: dict[str, int] = {}
    parts: dict[str, dict[str, list[float]]] = {}
    groups: dict[str, dict[Hashable, list[float]]] = {}
    for group, rewards in episodes:
        for name, breakdown in (rewards or {}).items():
            if not isinstance(breakdown, dict) or not isinstance(breakdown.get("total"), (int, float)):
                continue
            total = float(breakdown["total"])
            totals.setdefault(name, []).append(total)
            format_part = (breakdown.get("components") or {}).get("format") or 0.0
            outcome_paid[name] = outcome_paid.get(name, 0) + (total - float(format_part) > SPREAD_TOLERANCE)
            groups.setdefault(name, {}).setdefault(group, []).append(total)
            for part, value in (breakdown.get("components") or {}).items():
                if isinstance(value, (int, float)):
                    parts.setdefault(name, {}).setdefault(part, []).append(float(value))
    if not totals:
        return {}
    schemes = []
    histogram = {}
    for name in _ordered(set(totals)):
        values = totals[name]
        spread_groups = [members for members in groups[name].values() if len(members) > 1]
        flat = sum(max(members) - min(members) <= SPREAD_TOLERANCE for members in spread_groups)
        schemes.append({
            "name": name,
            "episodes": len(values),
            "mean": statistics.fmean(values),
            "sem": statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None,
            "outcome_share": outcome_paid[name] / len(values),
            "groups": len(spread_groups),
            "zero_spread_share": flat / len(spread_groups) if spread_groups else None,
            "components": {part: statistics.fmean(found) for part, found in sorted(parts.get(name, {}).items())},
        })
        counts = [0] * HISTOGRAM_BINS
        for value in values:
            counts[_bin(value)] += 1
        histogram[name] = counts
    edges = [round(index / HISTOGRAM_BINS, 2) for index in range(HISTOGRAM_BINS + 1)]
    return {"schemes": schemes, "bin_edges": edges, "histogram": histogram}


def parts_by_cell(episodes: Iterable[tuple[tuple[str, str], dict]]) -> list[dict]:
    """Each (policy, scaffold) cell's mean total and mean of each part, per scheme, over `episodes`: ((policy,
    scaffold), rewards) pairs. An episode without a part another has adds 0 to it, so the parts sum to the total."""
    cells: dict[tuple[str, str], dict[str, list[dict]]] = {}
    for cell, rewards in episodes:
        for name, breakdown in (rewards or {}).items():
            if isinstance(breakdown, dict) and isinstance(breakdown.get("total"), (int, float)):
                cells.setdefault(cell, {}).setdefault(name, []).append(breakdown)
    rows = []
    for (policy, scaffold), schemes in cells.items():
        row = {"policy": policy, "scaffold": scaffold, "schemes": {}}
        for name in _ordered(set(schemes)):
            found = schemes[name]
            names = list(dict.fromkeys(part for b in found for part in (b.get("components") or {})))
            row["schemes"][name] = {
                "episodes": len(found), "total": statistics.fmean(float(b["total"]) for b in found),
                "components": {part: statistics.fmean(float((b.get("components") or {}).get(part) or 0.0)
                                                      for b in found) for part in names}}
        rows.append(row)
    return rows
