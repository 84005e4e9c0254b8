"""What each fault scenario did, recorded as junit properties before its asserts: `bench/faults` runs these same
tests and sums the properties into its RESULT lines, so the figure and the test can never measure different things."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable
from pathlib import Path

FIGURES = ("faults_injected", "jobs_completed", "lost", "duplicates", "corrupt_bundles")


def tally(record_property, *, faults: int, jobs_completed: int, expected: int, keys: Iterable, corrupt: int = 0) -> None:
    """`keys` are the natural ids of what the jobs stored (task ids, (task, sample) pairs, episode keys); `expected`
    how many distinct ones they should have stored. Lost: expected ids never stored; duplicates: ids stored twice."""
    keys = list(keys)
    distinct = len(set(keys))
    record_property("faults_injected", faults)
    record_property("jobs_completed", jobs_completed)
    record_property("lost", max(0, expected - distinct))
    record_property("duplicates", len(keys) - distinct)
    record_property("corrupt_bundles", corrupt)


def summed(report: Path) -> tuple[dict, int, list[str]]:
    """The figures summed over a junit report (`-o junit_family=xunit1`), the failed count, the skips with reasons."""
    totals, failed, skipped = dict.fromkeys(FIGURES, 0), 0, []
    for case in ElementTree.parse(report).iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") in totals:
                totals[prop.get("name")] += int(prop.get("value"))
        failed += bool(case.find("failure") is not None or case.find("error") is not None)
        if (skip := case.find("skipped")) is not None:
            skipped.append(f"{case.get('name')}: {skip.get('message', '')}")
    return totals, failed, skipped
