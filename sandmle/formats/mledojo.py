"""MLE-Dojo's prepared competitions imported as our bundles.

The layout follows the MLE-Dojo repository (MLE-Dojo/MLE-Dojo): `prepare/mle.py` prepares a competition into
`<data-dir>/<id>/` with `raw/` (the Kaggle download, never read here), `data/public/` (the competition's
`utils/prepare.py` output plus `description.txt`) and `data/private/` (`test_answer.csv`, and the
`info/private_leaderboard.csv` and `info/public_leaderboard.csv` it copies there); `mledojo/gym/competition.py` lists
the files a competition must have (`public/description.txt`, `public/sample_submission.csv`,
`private/test_answer.csv`); `mledojo/gym/interface.py` reads a leaderboard's scores from its second column (the files
are `rank,score`, rank 1 first) and takes the metric's direction from the competition's metric class
(`utils/metric.py`, `higher_is_better`), which is not part of the prepared folder: hence `--metric`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sandmle.errors import UsageError
from sandmle.formats.bundle_io import imported_bundle, metric_by_name
from sandmle.formats.leaderboard import thresholds_from_leaderboard
from sandmle.metrics import get_metric

# mledojo/gym/competition.py's Competition.REQUIRED_PATHS, relative to the prepared data directory.
REQUIRED_FILES = ("public/description.txt", "public/sample_submission.csv", "private/test_answer.csv")
# Kaggle's final standings rank the private test set; the public board is the fallback MLE-Dojo also reads.
LEADERBOARD_NAMES = ("private_leaderboard.csv", "public_leaderboard.csv")


def _data_dir(source: Path) -> tuple[Path, str]:
    """The prepared data directory and the competition id: SRC is `<id>/` (holding data/) or `<id>/data/` itself."""
    if (source / "data" / "public").is_dir():
        return source / "data", source.name
    if (source / "public").is_dir() and source.name == "data":
        return source, source.resolve().parent.name
    raise UsageError(f"SRC: {source} is not a prepared MLE-Dojo competition (expected <id>/data/public and "
                     "<id>/data/private, as prepare/mle.py writes them)")


def _leaderboard_scores(board_path: Path, *, lower_is_better: bool, metric_name: str) -> list[float]:
    """Scores best first. A `rank` column orders them, and must agree with the metric's direction."""
    try:
        board = pd.read_csv(board_path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise UsageError(f"SRC: {board_path.name} could not be read: {str(error).splitlines()[0]}") from None
    columns = {str(name).strip().lower(): name for name in board.columns}
    if "score" in columns:
        score_column = columns["score"]
    elif len(board.columns) >= 2:
        score_column = board.columns[1]  # as mledojo/gym/interface.py reads it
    else:
        raise UsageError(f"SRC: {board_path.name} has no score column (expected rank,score)")
    scores = pd.to_numeric(board[score_column], errors="coerce")
    if "rank" in columns:
        ranked = pd.DataFrame({"rank": pd.to_numeric(board[columns["rank"]], errors="coerce"), "score": scores})
        ranked = ranked.dropna().sort_values("rank", kind="stable")["score"].tolist()
        if len(ranked) >= 2 and ranked[0] != ranked[-1] and (ranked[0] < ranked[-1]) != lower_is_better:
            direction = "lower" if lower_is_better else "higher"
            raise UsageError(f"--metric: {metric_name} is {direction}-is-better, but {board_path.name} ranks "
                             f"{ranked[0]} first and {ranked[-1]} last: name the competition's own metric")
    ordered = sorted(scores.dropna().astype(float).tolist(), reverse=not lower_is_better)
    if not ordered:
        raise UsageError(f"SRC: {board_path.name} has no scores")
    return ordered


def import_competition(source: Path, out_dir: Path, *, metric: str | None = None) -> Path:
    source = Path(source)
    data, competition_id = _data_dir(source)
    missing = [name for name in REQUIRED_FILES if not (data / name).is_file()]
    if missing:
        raise UsageError(f"SRC: the prepared competition lacks {', '.join('data/' + name for name in missing)}")
    if not metric:
        raise UsageError("--metric: an MLE-Dojo competition's metric must be named (it lives in the repository's "
                         "utils/metric.py, not in the prepared data), e.g. rmse or roc_auc")
    metric_name = metric_by_name(metric)
    lower = get_metric(metric_name).is_lower_better
    board_path = next((data / "private" / name for name in LEADERBOARD_NAMES if (data / "private" / name).is_file()),
                      None)
    if board_path is None:
        raise UsageError(f"SRC: no leaderboard in data/private ({' or '.join(LEADERBOARD_NAMES)})")
    scores = _leaderboard_scores(board_path, lower_is_better=lower, metric_name=metric_name)
    thresholds = thresholds_from_leaderboard(scores)
    thresholds["is_lower_better"] = lower
    answers = pd.read_csv(data / "private" / "test_answer.csv", dtype=str, keep_default_na=False)
    return imported_bundle(Path(out_dir) / competition_id, task_id=competition_id, public_dir=data / "public",
                           answers=answers, metric_name=metric_name, thresholds=thresholds,
                           leaderboard_scores=scores, ladder=None,
                           description=(data / "public" / "description.txt").read_text(encoding="utf-8",
                                                                                        errors="replace"),
                           source_format="mledojo")
