"""The latency study: one TaskSpec materialized at full scale and at its synthesized size, the same reference
pipelines run on both through the same sandbox, per-step wall times and their ratio (the paper's per-step speed-up)."""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
from pathlib import Path

from sandmle.errors import UsageError

FULL_ROWS = 200_000
# Reference pipelines as an agent would write them: read the public files, fit, predict, write a file. The target
# is the train column test.csv lacks; classification when it is text or has few distinct values.
_PIPELINE_HEAD = """
import pandas as pd
train = pd.read_csv('/public/train.csv')
test = pd.read_csv('/public/test.csv')
target = [c for c in train.columns if c not in test.columns][0]
features = [c for c in test.columns if c != 'id']
X = pd.get_dummies(train[features], dtype=float)
X_test = pd.get_dummies(test[features], dtype=float).reindex(columns=X.columns, fill_value=0.0)
y = train[target]
classify = y.dtype == object or y.nunique() <= 20
"""
PIPELINES = {
    "hist_gradient_boosting": _PIPELINE_HEAD + """
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
model = (HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor)(max_iter=100, random_state=0)
pd.DataFrame({'id': test['id'], target: model.fit(X, y).predict(X_test)}).to_csv('/workdir/pred.csv', index=False)
""",
    "linear": _PIPELINE_HEAD + """
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
model = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(max_iter=200) if classify else Ridge())
pd.DataFrame({'id': test['id'], target: model.fit(X, y).predict(X_test)}).to_csv('/workdir/pred.csv', index=False)
""",
    "random_forest": _PIPELINE_HEAD + """
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
forest = (RandomForestClassifier if classify else RandomForestRegressor)(n_estimators=25, n_jobs=1, random_state=0)
model = make_pipeline(SimpleImputer(), forest)
pd.DataFrame({'id': test['id'], target: model.fit(X, y).predict(X_test)}).to_csv('/workdir/pred.csv', index=False)
""",
}


def materialize(spec, out_dir: Path, *, n_train: int) -> Path:
    """The bundle files of `spec` with n_train training rows (test rows scaled alike); same rule, noise and domain."""
    from sandmle.synth.pipeline import build_bundle

    n_test = max(spec.n_test, int(spec.n_test * n_train / max(spec.n_train, 1)))
    return build_bundle(dataclasses.replace(spec, n_train=n_train, n_test=n_test), Path(out_dir))


def _time_steps(task_dir: Path, pipelines: dict[str, str], pool, *, timeout_s: float, memory_mb: int) -> dict:
    from sandmle.sandbox import Limits, Sandbox

    times = {}
    with tempfile.TemporaryDirectory(prefix="sandmle-latency-") as workdir:
        sandbox = Sandbox(public_dir=task_dir / "public", workdir=Path(workdir), pool=pool,
                          limits=Limits(timeout_s=timeout_s, memory_mb=memory_mb))
        try:
            for name, code in pipelines.items():
                result = sandbox.run_python(code)
                if result.exit_code != 0:
                    raise UsageError(f"pipeline {name} failed ({result.termination}): {result.stderr.strip()[-300:]}")
                times[name] = result.wall_s
        finally:
            sandbox.close()
    return times


def latency_study(spec, *, full_rows: int = FULL_ROWS, seeds: int = 3, pipelines: dict[str, str] | None = None,
                  timeout_s: float = 600.0, memory_mb: int = 4096) -> dict:
    """Per seed: each pipeline's step wall time at full and synthesized size; speedup = median full / median synth."""
    from sandmle.rollout import _make_pool

    if full_rows <= spec.n_train:
        raise UsageError(f"full_rows: {full_rows} must be more than the synthesized {spec.n_train} training rows")
    if seeds < 1:
        raise UsageError("seeds: must be at least 1")
    pipelines = pipelines or PIPELINES
    pool = _make_pool(1)
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="sandmle-latency-tasks-") as scratch:
            bundles = {"full": materialize(spec, Path(scratch) / "full", n_train=full_rows),
                       "synth": materialize(spec, Path(scratch) / "synth", n_train=spec.n_train)}
            for seed in range(seeds):
                # The two sizes alternate within a seed so that a busy moment of the machine touches both.
                times = {size: _time_steps(path, pipelines, pool, timeout_s=timeout_s, memory_mb=memory_mb)
                         for size, path in bundles.items()}
                runs.append({"seed": seed, **times,
                             "ratio": statistics.median(times["full"].values()) / statistics.median(times["synth"].values())})
    finally:
        close = getattr(pool, "close", None)
        if close:
            close()
    full = [t for run in runs for t in run["full"].values()]
    synth = [t for run in runs for t in run["synth"].values()]
    return {"task_id": spec.task_id, "full_rows": full_rows, "synth_rows": spec.n_train, "pipelines": list(pipelines),
            "runs": runs, "median_full_s": statistics.median(full), "median_synth_s": statistics.median(synth),
            "speedup": statistics.median(full) / statistics.median(synth)}
