"""The offline baseline on validated synthesized tasks: valid submissions with every scaffold, medals on some tasks.

bench/baseline runs the same over more tasks and prints the rates.
"""

from __future__ import annotations

import time

import pytest

from sandmle.agents import make_policy
from sandmle.agents.policies.baseline_code import solution_code
from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.episodes.runner import EpisodeConfig, run_batch, summarize
from sandmle.sandbox import SandboxPool
from tests.engine.text_seeds import write_review_csv

SEEDS = ("iris", "wine", "breast_cancer", "diabetes", "digits")
# The tree scaffolds get two nodes each (a draft, then an improve), enough to run both kinds of program.
SCAFFOLD_OPTIONS = {"react": {}, "mle_agent": {}, "aide": {"steps": 2, "num_drafts": 1},
                    "aira": {"steps": 2, "num_drafts": 1}}
# Each column: (label, scaffold, options); SandMLE's own dialect of ReAct beside the studio's.
COLUMNS = [(name, name, SCAFFOLD_OPTIONS[name]) for name in SCAFFOLDS] + [("react-sandmle", "react", {"dialect": "sandmle"})]


@pytest.fixture(scope="module")
def validated_tasks(tmp_path_factory):
    """One validated task per bundled seed (multiclass, binary, regression, image) and one from a text seed."""
    from sandmle.seeds.load import load_bundled_seed, load_csv_seed
    from sandmle.synth import synthesize

    out_dir = tmp_path_factory.mktemp("baseline-tasks")
    reviews = load_csv_seed(write_review_csv(out_dir / "reviews.csv"), target="label", name="reviews")
    seeds = [load_bundled_seed(name) for name in SEEDS] + [reviews]
    results = [result for seed in seeds for result in synthesize(seed, count=1, rng=3, out_dir=out_dir)]
    validated = [result.bundle_dir for result in results if result.status == "validated"]
    assert len(validated) >= 5, [(r.task_id, r.reasons) for r in results]
    return validated


@pytest.fixture(scope="module")
def warm_pool():
    with SandboxPool(max_zygotes=2) as pool:
        pool.warm_up()
        yield pool


def test_baseline_reaches_valid_submissions_with_every_scaffold(validated_tasks, warm_pool):
    policy = make_policy("baseline")
    summaries, medals = {}, {}
    for label, scaffold, options in COLUMNS:
        started = time.monotonic()
        config = EpisodeConfig(feedback="validate", step_timeout_s=120.0, scaffold_options=options)
        trajectories = run_batch(validated_tasks, scaffold=scaffold, policy_spec=policy, samples=1, concurrency=2,
                                 config=config, pool=warm_pool)
        summary = summarize(trajectories)
        summaries[label] = (summary["valid_rate"], summary["medal_rate"], round(time.monotonic() - started, 1))
        failures = [(t.task_id, t.termination, (t.error or "")[-500:], t.grade and t.grade.errors)
                    for t in trajectories if not (t.grade and t.grade.valid_submission)]
        assert summary["valid_rate"] >= 0.95, (label, failures)
        assert all(t.error is None for t in trajectories), (label, failures)
        medals[label] = sum(bool(t.grade.any_medal) for t in trajectories)
    print("baseline (valid rate, medal rate, seconds) per scaffold:", summaries)
    assert all(count >= 1 for count in medals.values()), summaries


def test_fallback_levels_write_valid_submissions(validated_tasks, warm_pool, tmp_path):
    """The programs the baseline falls back to after tracebacks (one family, no text/categoricals, the prior)."""
    from sandmle.sandbox import Limits, Sandbox
    from sandmle.tasks.grading import grade_submission

    task_dir = validated_tasks[0]
    for level in (1, 2, 3):
        workdir = tmp_path / f"level{level}"
        sandbox = Sandbox(public_dir=task_dir / "public", workdir=workdir, limits=Limits(timeout_s=120.0), pool=warm_pool)
        result = sandbox.run_python(solution_code(level=level, seed=0, variant=level))
        assert result.termination == "ok", result.stderr
        report = grade_submission(task_dir, workdir / "submission.csv")
        assert report.valid_submission, (level, report.errors)
