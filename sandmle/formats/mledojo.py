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
from sandmle.formats.source_files import PublicFiles, SourceFolder, SourceLimits, finite_number, plain_id
from sandmle.tasks.metrics import get_metric

# mledojo/gym/competition.py's Competition.REQUIRED_PATHS, relative to the prepared data directory.
REQUIRED_FILES = ("public/description.txt", "public/sample_submission.csv", "private/test_answer.csv")
# Kaggle's final standings rank the private test set; the public board is the fallback MLE-Dojo also reads.
LEADERBOARD_NAMES = ("private_leaderboard.csv", "public_leaderboard.csv")


def _data_dir(source: Path, limits: SourceLimits | None) -> tuple[SourceFolder, str]:
    """The prepared data directory and the competition id: SRC is `<id>/` (holding data/) or `<id>/data/` itself."""
    folder = SourceFolder(source, label="SRC", limits=limits)
    if folder.is_dir("data/public"):
        return folder.sub("data"), plain_id(folder.root.name, field_name="SRC's folder name")
    if folder.is_dir("public") and folder.root.name == "data":
        return folder, plain_id(folder.root.parent.name, field_name="SRC's folder name")
    raise UsageError(f"SRC: {source} is not a prepared MLE-Dojo competition (expected <id>/data/public and "
                     "<id>/data/private, as prepare/mle.py writes them)")


def _leaderboard_scores(data: SourceFolder, board: str, *, lower_is_better: bool, metric_name: str) -> list[float]:
    """Scores best first. A `rank` column orders them, and must agree with the metric's direction."""
    name = board.rsplit("/", 1)[-1]
    board = data.read_csv(board)
    columns = {str(column).strip().lower(): column for column in board.columns}
    if "score" in columns:
        score_column = columns["score"]
    elif len(board.columns) >= 2:
        score_column = board.columns[1]  # as mledojo/gym/interface.py reads it
    else:
        raise UsageError(f"SRC: {name} has no score column (expected rank,score)")
    scores = [None if pd.isna(score) else finite_number(score, field_name=f"{name} score on row {row}")
              for row, score in enumerate(board[score_column].tolist(), 1)]
    scores = pd.Series(scores, dtype=float)
    if "rank" in columns:
        ranked = pd.DataFrame({"rank": pd.to_numeric(board[columns["rank"]], errors="coerce"), "score": scores})
        ranked = ranked.dropna().sort_values("rank", kind="stable")["score"].tolist()
        if len(ranked) >= 2 and ranked[0] != ranked[-1] and (ranked[0] < ranked[-1]) != lower_is_better:
            direction = "lower" if lower_is_better else "higher"
            raise UsageError(f"--metric: {metric_name} is {direction}-is-better, but {name} ranks "
                             f"{ranked[0]} first and {ranked[-1]} last: name the competition's own metric")
    ordered = sorted(scores.dropna().astype(float).tolist(), reverse=not lower_is_better)
    if not ordered:
        raise UsageError(f"SRC: {name} has no scores")
    return ordered


def import_competition(source: Path, out_dir: Path, *, metric: str | None = None,
                       limits: SourceLimits | None = None) -> Path:
    """A prepared MLE-Dojo competition as a bundle in out_dir/<id>; the folder is untrusted (source_files.py)."""
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"SRC: {source} is not a folder")
    data, competition_id = _data_dir(source, limits)
    missing = [name for name in REQUIRED_FILES if not data.is_file(name)]
    if missing:
        raise UsageError(f"SRC: the prepared competition lacks {', '.join('data/' + name for name in missing)}")
    if not metric:
        raise UsageError("--metric: an MLE-Dojo competition's metric must be named (it lives in the repository's "
                         "utils/metric.py, not in the prepared data), e.g. rmse or roc_auc")
    metric_name = metric_by_name(metric)
    lower = get_metric(metric_name).is_lower_better
    board = next((f"private/{name}" for name in LEADERBOARD_NAMES if data.is_file(f"private/{name}")), None)
    if board is None:
        raise UsageError(f"SRC: no leaderboard in data/private ({' or '.join(LEADERBOARD_NAMES)})")
    scores = _leaderboard_scores(data, board, lower_is_better=lower, metric_name=metric_name)
    thresholds = thresholds_from_leaderboard(scores)
    thresholds["is_lower_better"] = lower
    answers = data.read_csv("private/test_answer.csv", dtype=str, keep_default_na=False)
    public_folder = data.sub("public")
    public = PublicFiles()
    for relative in public_folder.files():
        public.add(public_folder, relative)
    return imported_bundle(out_dir, task_id=competition_id, public=public, answers=answers, metric_name=metric_name,
                           thresholds=thresholds, leaderboard_scores=scores, ladder=None,
                           description=public_folder.read_text("description.txt"), source_format="mledojo")
