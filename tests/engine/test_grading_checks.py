"""The one check of a bundle's grading numbers (sandmle.tasks.grading_checks): synthesized tasks pass it; NaN, text,
huge, out-of-range, misordered or all-worst milestones and odd ladders are refused with the field named."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sandmle.errors import UsageError
from sandmle.tasks.grading import load_grading
from sandmle.tasks.grading_checks import check_grading, checked_grading_numbers

GOOD = {"metric": "roc_auc", "is_lower_better": False,
        "milestones": {"median": 0.7, "bronze": 0.8, "silver": 0.85, "gold": 0.9},
        "ladder": {"baseline": 0.5, "linear": 0.8, "oracle": 0.95}}
LOWER = {"metric": "rmse", "is_lower_better": True,
         "milestones": {"median": 3.0, "bronze": 1.5, "silver": 1.0, "gold": 1.0}, "ladder": {"baseline": 4.0}}


def with_milestones(base: dict, **changes) -> dict:
    return base | {"milestones": base["milestones"] | changes}


def test_synthesized_tasks_pass_the_check(iris_results):
    for result in iris_results:
        grading = load_grading(Path(result.bundle_dir))  # load_grading runs the check
        milestones, ladder = checked_grading_numbers(grading)
        assert set(milestones) == {"median", "bronze", "silver", "gold"} and ladder


def test_good_and_lower_is_better_gradings_pass():
    check_grading(GOOD)
    check_grading(LOWER)  # equal silver and gold: calibration may tie them
    check_grading(GOOD | {"ladder": None})


@pytest.mark.parametrize("grading, words", [
    (with_milestones(GOOD, median=math.nan), "milestones.median: expected a finite number"),
    (with_milestones(GOOD, gold=math.inf), "milestones.gold: expected a finite number"),
    (with_milestones(GOOD, bronze="<script>alert(1)</script>"), "milestones.bronze: expected a number"),
    (with_milestones(GOOD, gold=True), "milestones.gold: expected a number"),
    (with_milestones(LOWER, median=1e308), "milestones.median: 1e+308 is larger than any rmse score"),
    (with_milestones(LOWER, median=10 ** 49), "milestones.median: 1000000000"),
    (with_milestones(GOOD, gold=1.5), "milestones.gold: 1.5 lies outside roc_auc's range [0, 1]"),
    (with_milestones(LOWER, gold=-1.0), "lies outside rmse's range"),
    (with_milestones(GOOD, median=0, bronze=0, silver=0, gold=0), "milestones.median: 0 is roc_auc's worst score"),
    (with_milestones(GOOD, silver=0.75), "milestones.silver: 0.75 must be at least milestones.bronze (0.8)"),
    (with_milestones(LOWER, median=1.0), "milestones.bronze: 1.5 must be at most milestones.median (1)"),
    (GOOD | {"milestones": {"median": 0.7}}, "milestones: no bronze, silver, gold"),
    (GOOD | {"milestones": [0.7]}, "milestones: expected an object"),
    (GOOD | {"is_lower_better": True}, "is_lower_better: roc_auc is higher is better"),
    (GOOD | {"is_lower_better": "no"}, "is_lower_better: expected true or false"),
    (GOOD | {"metric": "vibes"}, "metric: unknown metric 'vibes'"),
    (GOOD | {"ladder": {"oracle": "x"}}, "ladder['oracle']: expected a number"),
    (GOOD | {"ladder": [0.5]}, "ladder: expected an object"),
    (GOOD | {"ladder": {"oracle": 2.0}}, "ladder['oracle']: 2 lies outside"),
])
def test_bad_numbers_are_refused_with_the_field_named(grading, words):
    with pytest.raises(UsageError) as refusal:
        check_grading(grading)
    assert words in str(refusal.value)


def test_load_grading_refuses_a_nan_milestone_written_by_hand(tmp_path):
    from tests.engine.rollout_bundles import make_bundle

    bundle = make_bundle(tmp_path, kind="regression")
    path = bundle / "private" / "grading.json"
    grading = json.loads(path.read_text())
    grading["milestones"]["median"] = math.nan
    path.write_text(json.dumps(grading))  # json writes NaN, which json reads back
    with pytest.raises(UsageError, match="milestones.median: expected a finite number"):
        load_grading(bundle)
