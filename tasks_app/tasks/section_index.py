"""The task page's map: its sections in the order a reviewer reads them, each empty one with the reason it is empty.

The sticky index at the top of the page and the sections themselves come from this one list, so they cannot drift."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    anchor: str  # the section's element id, so "#anchor" scrolls to it
    label: str  # as the index shows it
    empty_because: str = ""  # one line; a section with a reason is folded to that line

    @property
    def empty(self) -> bool:
        return bool(self.empty_because)


def task_sections(context: dict, *, is_reviewer: bool, is_curator: bool) -> list[Section]:
    """What a reviewer needs first (the critic, the hidden rule, the ladder, the decision), then the evidence behind it,
    then the task's history. Empty sections keep their place, folded, so the index reads the same on every task."""
    lineage = context.get("lineage") or {}
    sections = [
        Section("critic", "Critic"),
        Section("hidden-rule", "Hidden rule",
                "" if is_reviewer else "Only reviewers see hidden rules and private files."),
        Section("ladder", "Ladder"),
        Section("review", "Review"),
        Section("description", "Description"),
        Section("data-charts", "Data"),
        Section("dna", "DNA", "" if context.get("dna_rows") else
                "No DNA to compare: neither the seed's nor the task's statistics were recorded."),
        Section("rollout-stats", "Rollouts", "" if context.get("rollout_stats") else
                "No rollout batch has sampled this task yet; its success rate and reward spread appear here after one."),
        Section("versions", "Versions",
                "" if context.get("previous_version") or context.get("regeneration_runs") or is_curator else
                "First version: not regenerated from another task, and no regeneration started from it."),
    ]
    if lineage.get("parent") or lineage.get("successors"):
        sections.append(Section("lineage", "Lineage"))
    sections.append(Section("synthesis-log", "Synthesis log", "" if context.get("synthesis_log") else
                            "The synthesis run recorded no log lines for this task."))
    return sections
