"""MLE-Dojo's prepared competitions: data/public and data/private (test_answer.csv) with a leaderboard CSV beside them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sandmle.errors import UsageError
from sandmle.formats.bundle_io import imported_bundle, metric_by_name
from sandmle.formats.leaderboard import thresholds_from_leaderboard
from sandmle.metrics import get_metric

LEADERBOARD_NAMES = ("private_leaderboard.csv", "leaderboard.csv", "public_leaderboard.csv")
ANSWER_NAMES = ("test_answer.csv", "answer.csv", "answers.csv", "test.csv")


def _first(folder: Path, names: tuple[str, ...]) -> Path | None:
    return next((folder / name for name in names if (folder / name).is_file()), None)


def import_competition(source: Path, out_dir: Path, *, metric: str | None = None) -> Path:
    source = Path(source)
    data = source / "data" if (source / "data" / "public").is_dir() else source
    public, private = data / "public", data / "private"
    if not public.is_dir() or not private.is_dir():
        raise UsageError(f"SRC: {source} has no data/public and data/private folders")
    answers = _first(private, ANSWER_NAMES)
    if answers is None:
        raise UsageError(f"SRC: no answers among {', '.join(ANSWER_NAMES)} in data/private")
    if not metric:
        raise UsageError("--metric: an MLE-Dojo competition's metric must be named (e.g. rmse, roc_auc)")
    metric_name = metric_by_name(metric)
    board_path = next((path for folder in (source, data, private) if (path := _first(folder, LEADERBOARD_NAMES))),
                      None)
    if board_path is None:
        raise UsageError("SRC: no leaderboard CSV (private_leaderboard.csv or leaderboard.csv)")
    board = pd.read_csv(board_path)
    column = next((c for c in board.columns if str(c).lower() == "score"), None)
    if column is None:
        raise UsageError(f"SRC: {board_path.name} has no score column")
    # MLE-Dojo keeps Kaggle's leaderboards, not always sorted; MLE-bench's rules read them best first.
    lower = get_metric(metric_name).is_lower_better
    scores = sorted(board[column].dropna().astype(float).tolist(), reverse=not lower)
    if not scores:
        raise UsageError(f"SRC: {board_path.name} has no scores")
    thresholds = thresholds_from_leaderboard(scores)
    thresholds["is_lower_better"] = lower
    description = _first(source, ("description.md",)) or _first(public, ("description.md",))
    return imported_bundle(Path(out_dir) / source.name, task_id=source.name, public_dir=public,
                           answers=pd.read_csv(answers, dtype=str, keep_default_na=False), metric_name=metric_name,
                           thresholds=thresholds, leaderboard_scores=scores, ladder=None,
                           description=description.read_text() if description else None, source_format="mledojo")
