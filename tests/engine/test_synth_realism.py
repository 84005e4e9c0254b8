"""Believable environments: values on each domain column's declared range with the seed's shape, neutral ids, rules in
the column's units, a critic that names an implausible column, and every rng from 0 to 2**32 - 1 synthesizing."""

from __future__ import annotations

import contextlib
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sandmle.cli import main
from sandmle.seeds.dna import QUANTILES
from sandmle.seeds.load import load_bundled_seed, load_csv_seed
from sandmle.synth import calibrate, noise, synthesize
from sandmle.synth.domain_library.readings import Reading
from sandmle.synth.generate import carry_shape
from sandmle.synth.pipeline import TaskSpec, stage_seed
from sandmle.synth.plausibility import allowed_share, declared_readings, implausible_shares

RNG_MAX = 2**32 - 1
ID = re.compile(r"^r\d{5,}$")


def write_uploaded_csv(path, rows: int = 240):
    """An uploaded table as users send them: revenue in raw units, a signed margin, a skewed count, a small integer,
    a string category, gaps, and a yes/no target."""
    rng = np.random.default_rng(11)
    revenue = rng.lognormal(13, 1.2, rows)
    frame = pd.DataFrame({"revenue_usd": revenue.round(2), "margin": rng.normal(-0.02, 0.15, rows).round(4),
                          "complaints": rng.negative_binomial(2, 0.2, rows), "staff": rng.integers(1, 60, rows),
                          "region": rng.choice(["north", "south", "east", "west"], rows, p=[0.4, 0.3, 0.2, 0.1]),
                          "churned": np.where(revenue * rng.uniform(0.5, 1.5, rows) > np.exp(13.2), "no", "yes")})
    frame.loc[rng.uniform(size=rows) < 0.05, "margin"] = np.nan
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def fresh_tasks(tmp_path_factory):
    """One fresh task of every bundled seed and of an uploaded CSV seed."""
    out = tmp_path_factory.mktemp("realism")
    seeds = [load_bundled_seed(name) for name in ("iris", "wine", "breast_cancer", "diabetes", "digits")]
    seeds.append(load_csv_seed(write_uploaded_csv(out / "upload.csv"), target="churned", name="shop_upload"))
    return [(seed.name, result) for seed in seeds for result in synthesize(seed, count=1, rng=5, out_dir=out)]


def _public(result) -> pd.DataFrame:
    public = result.bundle_dir / "public"
    return pd.concat([pd.read_csv(public / "train.csv"), pd.read_csv(public / "test.csv")], ignore_index=True)


def test_fresh_tasks_read_as_their_domain(fresh_tasks):
    """Every declared column stays in its range beyond the stated glitch share, whole columns are whole outside the
    glitches, the description states the ranges and the glitch share."""
    checked = 0
    for seed_name, result in fresh_tasks:
        assert result.status == "validated", (seed_name, result.reasons)
        spec, frame = result.spec, _public(result)
        readings = declared_readings(spec.domain["features"] + spec.noise["distractor_columns"])
        allowed = allowed_share(noise.glitch_share(spec.noise), len(frame))
        for column, share in implausible_shares(frame, readings).items():
            assert share <= allowed, (seed_name, column, share, allowed)
            checked += 1
        description = (result.bundle_dir / "public" / "description.md").read_text()
        for column, reading in list(readings.items())[:3]:
            assert f"| `{column}` |" in description and f"{reading.typical[0]:g} to {reading.typical[1]:g}" in description
    assert checked >= 40


def test_ids_are_neutral_and_say_what_they_are(fresh_tasks):
    for seed_name, result in fresh_tasks:
        ids = _public(result)["id"].astype(str)
        assert ids.map(lambda value: bool(ID.match(value))).all(), (seed_name, ids.head().tolist())
        assert not ids.str.contains(seed_name[:3]).any() and result.spec.seed_name not in ids.iloc[0]
        assert "row identifier: `r` and a number, in no particular order" in (
            result.bundle_dir / "public" / "description.md").read_text()
        train = pd.read_csv(result.bundle_dir / "public" / "train.csv")
        if result.spec.dna["task_type"] != "regression":  # the id's number says nothing of the class
            numbers = train["id"].str[1:].astype(int)
            by_class = numbers.groupby(train[result.spec.domain["target_name"]]).mean()
            assert by_class.max() - by_class.min() < 0.5 * numbers.max(), by_class


def test_task_ids_name_no_seed(fresh_tasks):
    """The task id is the competition id SandMLE's ReAct prompt shows the agent and an archive's folder name."""
    for seed_name, result in fresh_tasks:
        assert seed_name.replace("_", "-") not in result.task_id and seed_name not in result.task_id, result.task_id
        assert result.task_id.startswith(result.domain_id.replace("_", "-") + "-"), result.task_id


def _thresholds(node):
    """Every (column, number) a rule compares a column with: conditions' thresholds and standardising centres."""
    if isinstance(node, dict):
        if "feature" in node and isinstance(node.get("threshold"), (int, float)):
            yield node["feature"], node["threshold"]
        for column, centre in (node.get("centre") or {}).items() if isinstance(node.get("centre"), dict) else ():
            yield column, centre
        for value in node.values():
            yield from _thresholds(value)
    elif isinstance(node, list):
        for value in node:
            yield from _thresholds(value)


def test_hidden_rule_reads_in_the_column_units(fresh_tasks):
    """A rule's thresholds and centres lie among the values the agent sees of that column, so the rule in words
    reads in the column's own units."""
    found = 0
    for _, result in fresh_tasks:
        frame = _public(result)
        rule = json.loads((result.bundle_dir / "private" / "rule.json").read_text())
        for column, value in _thresholds(rule):
            if column in frame and pd.api.types.is_numeric_dtype(frame[column]):
                values = frame[column].dropna()
                assert values.quantile(0.005) <= value <= values.quantile(0.995), (column, value)
                found += 1
    assert found >= 3


@settings(max_examples=60, deadline=None)
@given(q=st.lists(st.floats(-1e6, 1e6), min_size=7, max_size=7), low=st.floats(-500, 500),
       width=st.floats(0.01, 1e4), whole=st.booleans())
def test_carry_shape_is_monotone_and_stays_in_the_band(q, low, width, whole):
    quantiles = sorted(q)
    if whole:  # a whole column declares a range of whole numbers
        low, width = float(round(low)), float(max(round(width), 1))
    reading = Reading((low, low + width), (low - 2 * width, np.inf), whole)
    values = np.sort(np.random.default_rng(0).uniform(quantiles[0] - 1, quantiles[-1] + 1, 300))
    mapped = carry_shape(values, quantiles, reading)
    band_low, band_high = reading.band()
    assert np.all(np.diff(mapped) >= 0)  # monotone: the seed's order, hence its quantile shape, is kept
    assert mapped.min() >= band_low - 1e-9 and mapped.max() <= band_high + 1e-9
    if whole:
        assert np.array_equal(mapped, np.round(mapped))


def test_carry_shape_sends_the_seed_percentiles_onto_the_typical_range():
    skewed = np.random.default_rng(1).lognormal(0, 1, 5000)
    quantiles = np.quantile(skewed, QUANTILES).tolist()
    mapped = carry_shape(skewed, quantiles, Reading((60.0, 125.0), (20.0, 250.0), False))
    assert np.quantile(mapped, 0.05) == pytest.approx(60, abs=1) and np.quantile(mapped, 0.95) == pytest.approx(125, abs=1)
    assert pd.Series(mapped).skew() > 1  # the seed's right skew survives


@settings(max_examples=300, deadline=None)
@given(rng=st.integers(0, RNG_MAX), index=st.integers(0, 1000), attempt=st.integers(0, 3))
def test_stage_seeds_fit_every_consumer(rng, index, attempt):
    seed = stage_seed(rng, index, attempt)
    assert 0 <= seed <= RNG_MAX  # scikit-learn's random_state takes 0..2**32 - 1
    assert seed != stage_seed(rng, index, attempt + 1)


def test_critic_names_a_column_outside_its_range():
    reading = Reading((60.0, 125.0), (20.0, 250.0), True)
    frame = pd.DataFrame({"heart_rate": [12.7] * 30 + [80.0] * 70, "other": [1.0] * 100})
    shares = implausible_shares(frame, {"heart_rate": reading})
    assert shares == {"heart_rate": 0.3}
    ladder = {"baseline": 0.3, "linear": 0.5, "ensemble": 0.6, "skilled": 0.9, "oracle": 0.95}
    reasons = calibrate.critic(ladder=ladder, milestones={}, is_lower_better=False, leak_scores={}, shift_pvalues={},
                               implausible=shares, allowed_implausible=allowed_share(0.05, 100))
    assert any("implausible" in r and "'heart_rate'" in r for r in reasons)
    assert not calibrate.critic(ladder=ladder, milestones={}, is_lower_better=False, leak_scores={}, shift_pvalues={},
                                implausible=shares, allowed_implausible=0.3)


@settings(max_examples=2, deadline=None)
@given(rng=st.integers(0, RNG_MAX))
@example(rng=RNG_MAX)
@example(rng=5_000_000)
def test_cli_synthesizes_every_accepted_rng(rng, tmp_path_factory):
    out, printed = tmp_path_factory.mktemp("cli"), io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["synth", "--seed", "iris", "--count", "1", "--rng", str(rng), "--out", str(out)]) == 0
    summary = json.loads(printed.getvalue().strip().splitlines()[-1])
    spec = TaskSpec.from_dict(json.loads((out / summary["id"] / "task.json").read_text())["spec"])
    assert 0 <= spec.rng_seed <= RNG_MAX


def test_cli_refuses_an_rng_outside_the_range(tmp_path, capsys):
    assert main(["synth", "--seed", "iris", "--rng", str(RNG_MAX + 1), "--out", str(tmp_path)]) != 0
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and f"--rng must be between 0 and {RNG_MAX}" in error[0]
