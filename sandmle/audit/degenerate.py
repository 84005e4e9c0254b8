"""Degenerate solutions: what a policy earns without learning anything (the sample submission, a constant, random
predictions, the training labels by row order, the ids or the row order as the only feature). None may reach a
medal, nor any milestone tier the audit's reward scheme pays; one that does marks the task broken (a ladder set too
low, or ids or order that leak the target)."""

from __future__ import annotations

import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sandmle.rewards.schemes import compute_reward
from sandmle.tasks import grading, metrics
from sandmle.tasks.grade_report import GradeReport

DIGITS = re.compile(r"(\d+)(?!.*\d)")
# The schemes a degenerate outcome is priced under: those that need no judge. Dense (the training default) pays the
# median tier upward, sparse only gold.
PRICED_SCHEMES = ("dense", "sparse")
# The parts every valid submission earns whatever it predicts; the rest of a scheme's reward is its milestone tier.
UNEARNED_PARTS = ("valid", "format")


@dataclass
class DegenerateResult:
    """One degenerate solution's honest grade on the private split of one task."""

    task_id: str
    solution: str
    score: float | None
    milestone: str | None
    valid: bool
    medal: bool
    errors: list[str]
    tier_rewards: dict[str, float] = field(default_factory=dict)

    def pays(self, scheme: str) -> bool:
        """Whether the scheme pays this outcome anything beyond a valid submission's and the format's parts."""
        return self.tier_rewards.get(scheme, 0.0) > 1e-9

    def to_dict(self) -> dict:
        return asdict(self)


def _id_numbers(ids: pd.Series) -> np.ndarray:
    """The ids as numbers: the last run of digits in each (a string id's order), else their sorted position."""
    found = ids.astype(str).str.extract(DIGITS, expand=False)
    if found.notna().all():
        return found.astype(float).to_numpy()
    return ids.astype(str).rank(method="dense").to_numpy(dtype=float)


class _Predictions:
    """Turns per-row class labels, class probabilities or values into the task's submission frame."""

    def __init__(self, spec: dict, sample: pd.DataFrame, train: pd.DataFrame) -> None:
        self.spec = spec
        self.sample = sample
        self.id_column = spec.get("id_column", "id")
        self.target = spec["target_column"]
        self.kind = metrics.get_metric(spec["metric"]).prediction
        self.labels = [str(label) for label in spec.get("labels") or []]
        self.y = train[self.target].astype(str) if self.kind != "value" else train[self.target].astype(float)
        self.columns = [str(column) for column in spec["submission_columns"]]

    def from_labels(self, labels) -> pd.DataFrame:
        labels = [str(label) for label in labels]
        if self.kind == "label":
            return self._frame({self.target: labels})
        return self.from_probabilities(np.array([[float(label == name) for name in self.labels] for label in labels]))

    def from_probabilities(self, probabilities: np.ndarray) -> pd.DataFrame:
        if self.kind == "label":
            return self._frame({self.target: [self.labels[k] for k in probabilities.argmax(axis=1)]})
        prediction_columns = [column for column in self.columns if column != self.id_column]
        if len(prediction_columns) == 1:
            return self._frame({prediction_columns[0]: probabilities[:, min(1, probabilities.shape[1] - 1)]})
        return self._frame({name: probabilities[:, k] for k, name in enumerate(self.labels)})

    def from_values(self, values) -> pd.DataFrame:
        return self._frame({self.target: np.asarray(values, dtype=float)})

    def _frame(self, columns: dict) -> pd.DataFrame:
        frame = pd.DataFrame({self.id_column: self.sample[self.id_column].to_numpy(), **columns})
        return frame[self.columns]

    def prior(self) -> np.ndarray:
        counts = self.y.value_counts()
        return np.array([counts.get(label, 0) for label in self.labels], dtype=float) / len(self.y)


def degenerate_frames(task_dir: Path, *, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Each degenerate solution's submission for a task, built from its public files (and its grading spec's shape)."""
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

    task_dir = Path(task_dir)
    spec = grading.load_grading(task_dir)
    public = task_dir / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype={spec.get("id_column", "id"): str})
    train = pd.read_csv(public / "train.csv", dtype={spec.get("id_column", "id"): str})
    make = _Predictions(spec, sample, train)
    rng = np.random.default_rng(seed)
    n = len(sample)
    frames = {"sample_submission": sample}
    if make.target not in train:
        return frames  # a layout without the target in train.csv: only the sample can be judged
    if make.kind == "value":
        frames["constant_mean"] = make.from_values(np.full(n, make.y.mean()))
        frames["random"] = make.from_values(rng.normal(make.y.mean(), make.y.std() or 1.0, size=n))
        frames["train_labels_by_row"] = make.from_values(np.resize(make.y.to_numpy(), n))
    else:
        prior = make.prior()
        frames["constant_majority"] = make.from_labels([make.labels[int(prior.argmax())]] * n)
        if make.kind == "probability":
            frames["constant_prior"] = make.from_probabilities(np.tile(prior, (n, 1)))
        frames["random"] = make.from_probabilities(rng.dirichlet(np.ones(len(make.labels)), size=n))
        frames["train_labels_by_row"] = make.from_labels(np.resize(make.y.to_numpy(), n))
    id_column = spec.get("id_column", "id")
    for name, train_feature, test_feature in (
            ("ids_as_feature", _id_numbers(train[id_column]), _id_numbers(sample[id_column])),
            ("row_order_as_feature", np.arange(len(train), dtype=float), np.arange(n, dtype=float))):
        neighbours = min(15, len(train))
        if make.kind == "value":
            model = KNeighborsRegressor(n_neighbors=neighbours).fit(train_feature[:, None], make.y)
            frames[name] = make.from_values(model.predict(test_feature[:, None]))
        else:
            model = KNeighborsClassifier(n_neighbors=neighbours).fit(train_feature[:, None], make.y)
            found = model.predict_proba(test_feature[:, None])
            order = [list(model.classes_).index(label) if label in model.classes_ else None for label in make.labels]
            probabilities = np.column_stack([found[:, k] if k is not None else np.zeros(n) for k in order])
            frames[name] = make.from_probabilities(probabilities)
    return frames


def tier_rewards(report: GradeReport) -> dict[str, float]:
    """What each priced scheme pays for the report's milestone tier, beyond the valid and format parts."""
    paid = {}
    for scheme in PRICED_SCHEMES:
        parts = compute_reward(scheme, report=report, format_rate=0.0).components
        paid[scheme] = round(sum(value for part, value in parts.items() if part not in UNEARNED_PARTS), 9)
    return paid


def stored_tier_rewards(milestone: str | None, *, valid: bool) -> dict[str, float]:
    """`tier_rewards` of a stored grade (its milestone and validity), for pages that keep only those two."""
    medal = {name: milestone == name for name in ("gold", "silver", "bronze")}
    report = GradeReport(competition_id="", score=None, gold_threshold=0.0, silver_threshold=0.0,
                         bronze_threshold=0.0, median_threshold=0.0, gold_medal=medal["gold"],
                         silver_medal=medal["silver"], bronze_medal=medal["bronze"], any_medal=any(medal.values()),
                         above_median=bool(milestone), submission_exists=valid, valid_submission=valid,
                         is_lower_better=False, milestone=milestone or None, position_score=0.0)
    return tier_rewards(report)


def grade_degenerate(task_dir: Path, *, seed: int = 0) -> list[DegenerateResult]:
    """Every degenerate solution graded on the private split, with what each priced scheme pays for its tier."""
    task_dir = Path(task_dir)
    task_id = grading._task_id(task_dir)
    results = []
    with tempfile.TemporaryDirectory(prefix="sandmle-degenerate-") as scratch:
        for name, frame in degenerate_frames(task_dir, seed=seed).items():
            path = Path(scratch) / f"{name}.csv"
            frame.to_csv(path, index=False)
            report = grading.grade_submission(task_dir, path, split="private")
            results.append(DegenerateResult(task_id=task_id, solution=name, score=report.score,
                                            milestone=report.milestone, valid=report.valid_submission,
                                            medal=report.any_medal, errors=report.errors[:3],
                                            tier_rewards=tier_rewards(report)))
    return results
