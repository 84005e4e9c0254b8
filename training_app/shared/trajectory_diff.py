"""Where trajectories of one group first part ways: the side-by-side page marks that turn in every column."""

from __future__ import annotations


def _turn_signature(turn: dict) -> tuple:
    """What the policy did and saw on a turn; timings are left out (two runs of the same code never take as long)."""
    return (turn.get("role"), turn.get("kind"), turn.get("text"), str(turn.get("code_html")), turn.get("observation"))


def first_difference(turn_lists: list[list[dict]]) -> int | None:
    """The 0-based position of the first turn on which the trajectories differ (one of them having ended counts as a
    difference); None when there are fewer than two or all are the same, turn for turn."""
    if len(turn_lists) < 2:
        return None
    longest = max(len(turns) for turns in turn_lists)
    for position in range(longest):
        signatures = {_turn_signature(turns[position]) if position < len(turns) else None for turns in turn_lists}
        if len(signatures) > 1:
            return position
    return None


def mark_first_difference(turn_lists: list[list[dict]]) -> int | None:
    """Sets `first_difference` on the turn at that position in every column that has one; returns the position."""
    position = first_difference(turn_lists)
    if position is not None:
        for turns in turn_lists:
            if position < len(turns):
                turns[position]["first_difference"] = True
    return position
