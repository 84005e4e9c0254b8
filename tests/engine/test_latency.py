"""The latency study on a small 'full' size: the same spec at two sizes, every pipeline timed at both, the ratio."""

from __future__ import annotations

import pandas as pd
import pytest

from sandmle.errors import UsageError
from sandmle.latency.study import latency_study, materialize
from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import synthesize


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    return synthesize(load_bundled_seed("iris"), count=1, rng=3, out_dir=tmp_path_factory.mktemp("latency"))[0].spec


def test_the_same_spec_materializes_at_both_sizes_with_the_same_columns(spec, tmp_path):
    full = pd.read_csv(materialize(spec, tmp_path / "full", n_train=3000) / "public" / "train.csv")
    small = pd.read_csv(materialize(spec, tmp_path / "small", n_train=spec.n_train) / "public" / "train.csv")
    assert len(full) == 3000 and len(small) == spec.n_train and set(full.columns) == set(small.columns)


def test_latency_study_times_every_pipeline_at_both_sizes(spec):
    study = latency_study(spec, full_rows=5000, seeds=1, pipelines=None)
    run = study["runs"][0]
    assert set(run["full"]) == set(run["synth"]) == set(study["pipelines"])
    assert all(t > 0 for t in [*run["full"].values(), *run["synth"].values()])
    assert study["speedup"] == pytest.approx(study["median_full_s"] / study["median_synth_s"])
    assert study["synth_rows"] == spec.n_train and study["full_rows"] == 5000


def test_full_size_must_exceed_the_synthesized_one(spec):
    with pytest.raises(UsageError, match="^full_rows: "):
        latency_study(spec, full_rows=spec.n_train)
