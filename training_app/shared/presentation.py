"""Turns a stored trajectory record into what the trajectory page shows: highlighted code, the ladder, rewards."""

from __future__ import annotations

from django.utils.safestring import mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from sandmle.evaluation.metrics import episode_turns, policy_calls
from sandmle.tasks.grade_report import GradeReport
from training_app.rollouts.models import RolloutBatch
from training_app.runs.models import TrainingRun

MILESTONES = ("median", "bronze", "silver", "gold")
TURNS_HELP = ("turns the policy may take: a ReAct or MLE-Agent action, an AIDE or AIRA node (its review and re-asks "
              "are not turns); a scaffold option max_turns sets its own")
_FORMATTER = HtmlFormatter(nowrap=False, cssclass="highlight")
FOLD_LINES = 30  # code or output longer than this opens on a click, its line count in the summary


def highlight_code(code: str):
    return mark_safe(highlight(code, PythonLexer(), _FORMATTER)) if code else ""


def _line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def turn_views(record: dict) -> list[dict]:
    """One view a turn. A tool turn that runs the code the turn before it wrote shows that code once, on the turn that
    wrote it (`same_code_as` names it); each block longer than FOLD_LINES carries its line count, so the page folds it."""
    views = []
    previous_code = ""
    for index, turn in enumerate(record.get("turns", []), start=1):
        step = turn.get("step") or {}
        code = turn.get("code") or ""
        repeats = bool(code) and code == previous_code and turn.get("role") == "tool"
        observation = turn.get("observation", "")
        text = turn.get("text", turn.get("reply", ""))
        views.append({
            "index": index,
            "role": turn.get("role", ""),
            "kind": turn.get("kind", turn.get("action", "")),
            "thinking": turn.get("thinking", ""),
            "text": text,
            "code_html": "" if repeats else highlight_code(code),
            "same_code_as": index - 1 if repeats else None,
            "code_lines": _line_count(code),
            "text_lines": _line_count(text),
            "observation": observation,
            "observation_lines": _line_count(observation),
            "fold_code": _line_count(code) > FOLD_LINES,
            "fold_text": _line_count(text) > FOLD_LINES,
            "fold_observation": _line_count(observation) > FOLD_LINES,
            "well_formed": turn.get("well_formed", True),
            "termination": step.get("termination", ""),
            "seconds": turn.get("wall_s", step.get("wall_s")),
        })
        previous_code = code
    return views


def turn_count(record: dict, max_turns: int | None) -> str:
    """One label for an episode's length wherever it is shown: the turns `max_turns` bounds, out of that bound, and the
    policy calls when reviews, repairs or re-asks add some (an AIDE node is a turn with a code reply and a review)."""
    turns, calls = episode_turns(record), policy_calls(record)
    max_turns = ((record.get("extra") or {}).get("scaffold_options") or {}).get("max_turns") or max_turns
    text = f"{turns} of {max_turns} turns" if max_turns else f"{turns} turn{'s' if turns != 1 else ''}"
    return text + (f" ({calls} policy calls with reviews, repairs and re-asks)" if calls != turns else "")


def ladder_view(grade: GradeReport | None) -> list[dict]:
    """The milestone ladder with where the submission landed; an episode never graded reached none of it."""
    grade = grade or GradeReport()
    reached = grade.milestone
    order = {name: rank for rank, name in enumerate(MILESTONES)}
    return [
        {"name": name, "threshold": getattr(grade, f"{name}_threshold"),
         "reached": reached is not None and order.get(reached, -1) >= order[name]}
        for name in MILESTONES
    ]


def pygments_css() -> str:
    return _FORMATTER.get_style_defs(".highlight")


# The field's names for the scaffolds and run kinds, as papers and their repositories spell them: the models' choices
# hold them (forms, filters and the API's schema show the same words); these maps serve values read from JSON.
SCAFFOLD_LABELS = dict(RolloutBatch.Scaffold.choices)
KIND_LABELS = dict(TrainingRun.Kind.choices)
# The feedback modes as the launch form offers them; score_answers is SandMLE's released Score tool (the real answers).
FEEDBACK_LABELS = {"none": "none", "validate": "validate (format only)", "score": "score (a public split)",
                   "score_answers": "score_answers (the real answers, as SandMLE's authors: saw test scores)"}
SAW_TEST_SCORES = "saw test scores"


def saw_test_scores(config: dict | None) -> bool:
    """True for a run (or a checkpoint's provenance) whose Score tool graded against the real answers."""
    return bool(config) and (config.get("feedback") == "score_answers" or bool(config.get("saw_test_scores")))
