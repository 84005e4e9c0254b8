"""The latency study: one TaskSpec materialized at full scale and at its synthesized size (or a user's real large table
against a task synthesized from it), the same reference pipelines run on both through the same sandbox, per-step wall
times and their ratio (the paper's per-step speed-up)."""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
from pathlib import Path
from typing import Callable

from sandmle.errors import UsageError

FULL_ROWS = 200_000
# A real table for the study is streamed by the host (table.py) and read whole by every sandboxed pipeline;
# beyond this it is refused, not sampled.
LARGE_CSV_MAX_BYTES = 1 << 30
HEAD_CHECK_BYTES = 4 << 20  # the head of a large table is checked as a seed would be before the whole is parsed
DNA_SAMPLE_ROWS = 5000  # the synthesized twin's DNA comes from a random sample of the table, not from its first rows
SPEC_ATTEMPTS = 4
# Reference pipelines as an agent would write them: read the public files, fit, predict, write a file. The target
# is the train column test.csv lacks; classification when it is text or has few distinct values.
_PIPELINE_HEAD = """
import pandas as pd
train = pd.read_csv('/public/train.csv')
test = pd.read_csv('/public/test.csv')
target = [c for c in train.columns if c not in test.columns][0]
# Free text and identifier-like strings would explode into one dummy column per value at full scale: drop them.
features = [c for c in test.columns if c != 'id' and not (test[c].dtype == object and test[c].nunique() > 50)]
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


def _run_study(bundles: dict[str, Path], *, seeds: int, pipelines: dict[str, str], timeout_s: float,
               memory_mb: int, progress: Callable[[int, int, str], None] | None,
               should_stop: Callable[[], bool] | None) -> tuple[list[dict], bool]:
    from sandmle.episodes.runner import _make_pool

    pool = _make_pool(1)
    runs: list[dict] = []
    total, done = seeds * len(bundles), 0
    try:
        for seed in range(seeds):
            times = {}
            # The two sizes alternate within a seed so that a busy moment of the machine touches both.
            for size, path in bundles.items():
                if should_stop is not None and should_stop():
                    return runs, False
                times[size] = _time_steps(path, pipelines, pool, timeout_s=timeout_s, memory_mb=memory_mb)
                done += 1
                if progress is not None:
                    progress(done, total, f"seed {seed + 1}/{seeds}: {size} size timed")
            ratio = statistics.median(times["full"].values()) / statistics.median(times["synth"].values())
            runs.append({"seed": seed, **times, "ratio": ratio})
    finally:
        close = getattr(pool, "close", None)
        if close:
            close()
    return runs, True


def _summary(runs: list[dict], **fields) -> dict:
    full = [t for run in runs for t in run["full"].values()]
    synth = [t for run in runs for t in run["synth"].values()]
    medians = {"median_full_s": statistics.median(full), "median_synth_s": statistics.median(synth),
               "speedup": statistics.median(full) / statistics.median(synth)} if runs else \
        {"median_full_s": None, "median_synth_s": None, "speedup": None}
    return {**fields, "runs": runs, **medians}


def _check_study(seeds: int, pipelines: dict[str, str] | None) -> dict[str, str]:
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise UsageError("seeds: must be at least 1")
    return pipelines or PIPELINES


def pipeline_subset(names: list[str] | None) -> dict[str, str]:
    """The reference pipelines named (all when none are); an unknown name is a UsageError naming the choices."""
    unknown = [name for name in names or [] if name not in PIPELINES]
    if unknown:
        raise UsageError(f"pipelines: expected some of {', '.join(PIPELINES)}, not {', '.join(map(repr, unknown))}")
    return {name: PIPELINES[name] for name in names} if names else dict(PIPELINES)


def spec_from_dna(dna, *, seed_name: str, rng: int = 0):
    """A TaskSpec at SandMLE's size (50-200 training rows) from a seed's DNA, without calibration: the study times
    steps, it does not grade them. As synthesis does, a rule design that finds no balanced split is redrawn."""
    from sandmle.synth.pipeline import make_spec, stage_seed

    problem = None
    for attempt in range(SPEC_ATTEMPTS):
        try:
            return make_spec(dna, seed_name=seed_name, seed_names={seed_name}, rng_seed=stage_seed(rng, 0, attempt),
                             log=[])
        except ValueError as error:
            problem = error
    raise UsageError(f"no task can be synthesized from this seed: {problem}")


def latency_study(spec, *, full_rows: int = FULL_ROWS, seeds: int = 3, pipelines: dict[str, str] | None = None,
                  timeout_s: float = 600.0, memory_mb: int = 4096,
                  progress: Callable[[int, int, str], None] | None = None,
                  should_stop: Callable[[], bool] | None = None) -> dict:
    """Per seed: each pipeline's step wall time at full and synthesized size; speedup = median full / median synth.

    `progress(done, total, message)` is called after each size of each seed; `should_stop()` is asked before each,
    and a stopped study returns the seeds it finished with `complete: false`."""
    if isinstance(full_rows, bool) or not isinstance(full_rows, int) or full_rows <= spec.n_train:
        raise UsageError(f"full_rows: {full_rows} must be more than the synthesized {spec.n_train} training rows")
    pipelines = _check_study(seeds, pipelines)
    with tempfile.TemporaryDirectory(prefix="sandmle-latency-tasks-") as scratch:
        bundles = {"full": materialize(spec, Path(scratch) / "full", n_train=full_rows),
                   "synth": materialize(spec, Path(scratch) / "synth", n_train=spec.n_train)}
        runs, complete = _run_study(bundles, seeds=seeds, pipelines=pipelines, timeout_s=timeout_s,
                                    memory_mb=memory_mb, progress=progress, should_stop=should_stop)
    return _summary(runs, task_id=spec.task_id, source="spec", full_rows=full_rows, synth_rows=spec.n_train,
                    pipelines=list(pipelines), complete=complete)


def check_table(csv_path: Path, *, target: str, max_bytes: int = LARGE_CSV_MAX_BYTES) -> None:
    """The cheap checks of a large table, before anyone parses it whole: it exists, fits the cap, and its head passes
    the seed checks (UTF-8 text, a readable header, the target column). UsageError naming --csv or --target."""
    from sandmle.seeds.load import SeedError, load_csv_seed

    csv_path = Path(csv_path)
    if not csv_path.is_file():
        raise UsageError(f"--csv: no file {csv_path}")
    size = csv_path.stat().st_size
    if size > max_bytes:
        raise UsageError(f"--csv: the file is {size / 2**20:.0f} MiB; the study reads at most "
                         f"{max_bytes / 2**20:.0f} MiB")
    with open(csv_path, "rb") as handle:
        head = handle.read(HEAD_CHECK_BYTES)
    if len(head) == HEAD_CHECK_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]  # whole lines only
    try:
        load_csv_seed(head, target=target)
    except SeedError as error:
        raise UsageError(f"--{'target' if error.field == 'target' else 'csv'}: {error}") from None


def latency_study_csv(csv_path: Path, *, target: str, rows: int | None = None, seeds: int = 3, rng: int = 0,
                      pipelines: dict[str, str] | None = None, timeout_s: float = 600.0, memory_mb: int = 4096,
                      max_bytes: int = LARGE_CSV_MAX_BYTES, progress: Callable[[int, int, str], None] | None = None,
                      should_stop: Callable[[], bool] | None = None) -> dict:
    """A user's real large table is the full-scale task (80% train, 20% test, `rows` caps the training rows); its
    synthesized twin is a task made from the table's DNA at SandMLE's size (50-200 rows). Same pipelines, same
    sandbox; speedup = median step time on the real table / on the twin."""
    from sandmle.latency.table import split_rows_bounded
    from sandmle.seeds.dna import extract_dna
    from sandmle.seeds.load import SeedError, load_csv_seed
    from sandmle.synth.pipeline import build_bundle

    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 1):
        raise UsageError(f"--rows: {rows!r} must be a whole number of at least 1")
    pipelines = _check_study(seeds, pipelines)
    check_table(csv_path, target=target, max_bytes=max_bytes)
    name = Path(csv_path).stem.lower().replace(" ", "_")[:60] or "table"
    with tempfile.TemporaryDirectory(prefix="sandmle-latency-tasks-") as scratch:
        # The whole table never sits in this process: a capped child streams it into the full-scale files.
        split = split_rows_bounded(csv_path, target=target, out_dir=Path(scratch) / "full", rows=rows,
                                   sample_rows=DNA_SAMPLE_ROWS, rng=rng)
        try:
            dna = extract_dna(load_csv_seed(split["sample"].encode(), target=target, name=name))
        except SeedError as error:
            raise UsageError(f"--csv: {error}") from None
        try:
            spec = spec_from_dna(dna, seed_name=name, rng=rng)
        except UsageError as error:
            raise UsageError(f"--csv: {error}") from None
        full_rows = split["train_rows"]
        if full_rows <= spec.n_train:
            raise UsageError(f"--csv: the table gives {full_rows} training rows; the full-scale side needs more than "
                             f"the synthesized {spec.n_train}")
        bundles = {"full": Path(scratch) / "full", "synth": build_bundle(spec, Path(scratch) / "synth")}
        runs, complete = _run_study(bundles, seeds=seeds, pipelines=pipelines, timeout_s=timeout_s,
                                    memory_mb=memory_mb, progress=progress, should_stop=should_stop)
    return _summary(runs, task_id=spec.task_id, source="csv", table=Path(csv_path).name, target=target,
                    full_rows=full_rows, synth_rows=spec.n_train, pipelines=list(pipelines), complete=complete)
