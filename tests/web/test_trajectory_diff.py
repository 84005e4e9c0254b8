"""Where side-by-side trajectories first part ways (issue 57), and code a tool turn reruns shown once."""

from __future__ import annotations

from training_app.shared.presentation import FOLD_LINES, turn_views
from training_app.shared.trajectory_diff import first_difference, mark_first_difference


def _turns(*codes: str) -> list[dict]:
    turns = []
    for code in codes:
        turns += [{"role": "assistant", "kind": "reply", "code": code, "wall_s": 0.1},
                  {"role": "tool", "kind": "python", "code": code, "observation": "ok", "wall_s": 0.5}]
    return turn_views({"turns": turns})


def test_the_first_turn_that_differs_is_marked_in_every_column_and_timings_do_not_count():
    same, other = _turns("a = 1", "b = 2"), _turns("a = 1", "b = 3")
    other[1]["seconds"] = 9.0
    assert first_difference([same, _turns("a = 1", "b = 2")]) is None
    assert mark_first_difference([same, other]) == 2
    assert same[2]["first_difference"] and other[2]["first_difference"] and "first_difference" not in same[1]
    assert first_difference([_turns("a = 1"), _turns("a = 1", "b = 2")]) == 2  # one ended sooner
    assert first_difference([same]) is None


def test_a_tool_turn_points_back_to_the_code_and_long_blocks_fold():
    long_code = "\n".join(f"x{i} = {i}" for i in range(FOLD_LINES + 5))
    reply, tool = _turns(long_code)
    assert reply["code_html"] and reply["fold_code"] and reply["code_lines"] == FOLD_LINES + 5
    assert tool["code_html"] == "" and tool["same_code_as"] == 1 and not tool["fold_observation"]
