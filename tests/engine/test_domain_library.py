"""The domain library: its size and sector spread, coherent names and units, and domains for every modality."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import load_csv_seed
from sandmle.synth.domains import DOMAINS, mutate_domain

SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def test_library_is_large_and_spread_over_sectors():
    sectors = Counter(d.sector for d in DOMAINS)
    assert len(DOMAINS) >= 40 and len(sectors) >= 12
    assert max(sectors.values()) <= len(DOMAINS) // 6  # no sector dominates
    for sector in ("energy", "agriculture", "health", "manufacturing", "finance", "logistics", "telecom", "environment",
                   "transport", "insurance", "retail", "education", "public_services", "sports"):
        assert sector in sectors, sector
    assert len({d.domain_id for d in DOMAINS}) == len(DOMAINS)


def test_every_domain_is_coherent():
    for d in DOMAINS:
        names = [name for name, _ in d.features]
        assert SNAKE.match(d.domain_id) and SNAKE.match(d.target_name), d.domain_id
        assert all(SNAKE.match(name) for name in names) and len(set(names)) == len(names), d.domain_id
        assert all(unit.strip() for _, unit in d.features), d.domain_id
        assert d.target_name not in names and (d.text_field or "-") not in names, d.domain_id
        assert len(d.features) >= (8 if d.modalities != ("image",) else 6), d.domain_id
        if d.is_regression:
            assert d.target_unit, d.domain_id
        else:
            assert len(d.label_names) >= 3 and len(set(d.label_names)) == len(d.label_names), d.domain_id
            assert all(SNAKE.match(label) for label in d.label_names), d.domain_id
        assert 150 <= len(d.context) <= 800 and d.context.endswith("."), d.domain_id
        assert "  " not in d.context and d.title[0].isupper(), d.domain_id


def test_image_and_text_domains_carry_what_generation_needs():
    image = [d for d in DOMAINS if "image" in d.modalities]
    text = [d for d in DOMAINS if "text" in d.modalities]
    assert len(image) >= 6 and len(text) >= 8
    for d in image:  # digits has ten classes; every image domain can name them
        assert len(d.label_names) >= 10 and d.image_subject, d.domain_id
    for d in text:
        assert SNAKE.match(d.text_field) and "common" in d.vocabulary, d.domain_id
        topics = d.label_names or [key for key in d.vocabulary if key != "common"]
        assert len(topics) >= 3 and all(len(d.vocabulary[topic]) >= 3 for topic in topics), d.domain_id
    assert any(d.is_regression for d in text) and any(not d.is_regression for d in text)
    tabular = [d for d in DOMAINS if "tabular" in d.modalities]
    assert sum(d.is_regression for d in tabular) >= 10 and sum(not d.is_regression for d in tabular) >= 20
    assert sum(len(d.features) >= 30 for d in tabular) >= 3  # wide seeds (breast_cancer: 30 columns) fit unrepeated


def test_text_seed_mutates_into_a_text_domain_with_its_vocabulary():
    rng = np.random.default_rng(0)
    words = ["valve", "noise", "leak", "pressure", "filter", "seal", "motor", "belt", "sensor", "cable"]
    frame = pd.DataFrame({
        "remark": [" ".join(rng.choice(words, size=12)) + f" case {i}" for i in range(80)],
        "hours": rng.integers(0, 500, 80), "temp": rng.normal(40, 5, 80),
        "kind": rng.choice(["alpha", "beta", "gamma"], 80),
    })
    seed = load_csv_seed(frame.to_csv(index=False).encode(), target="kind", name="notes")
    dna = extract_dna(seed)
    assert dna.modality == "text"
    choice = mutate_domain(dna, rng=np.random.default_rng(4), seed_names={"remark", "hours", "temp", "kind"})
    assert choice.domain_id in {d.domain_id for d in DOMAINS if "text" in d.modalities}
    assert choice.features[0] == {"name": choice.text_field, "unit": "text"}
    assert [f["unit"] for f in choice.features[1:]][0] == "count"  # the integer column got a count
    assert set(choice.vocabulary) == {*choice.label_names, "common"} and len(choice.label_names) == 3


def undeclared_columns(domains) -> list[str]:
    """Domain columns without what generation needs to make believable values: a numeric column's typical range, hard
    bounds (within what its unit allows) and wholeness; a coded category's level names."""
    from sandmle.synth.domain_library.readings import DEFINED_BY_UNIT, LEVELS, UNIT_BOUNDS, WHOLE_UNITS, reading_for

    problems = []
    for d in domains:
        for name, unit in d.features:
            where = f"{d.domain_id}.{name} ({unit})"
            if unit == "category":
                levels = LEVELS.get(name, ())
                if len(levels) < 2 or len(set(levels)) != len(levels) or not all(SNAKE.match(v) for v in levels):
                    problems.append(f"{where}: no level names")
                continue
            reading = reading_for(name, unit)
            if reading is None:
                problems.append(f"{where}: no declared range")
                continue
            (low, high), (lowest, highest) = reading.typical, reading.bounds
            unit_low, unit_high = UNIT_BOUNDS[unit.replace(" ", "_")] if unit in DEFINED_BY_UNIT else (lowest, highest)
            if not (lowest <= low < high <= highest) or lowest < unit_low or highest > unit_high:
                problems.append(f"{where}: typical {low}..{high} and bounds {lowest}..{highest} do not fit the unit")
            if unit in WHOLE_UNITS and not reading.whole:
                problems.append(f"{where}: a {unit} is whole")
    return problems


def test_every_domain_column_declares_where_real_readings_lie():
    assert sum(len(d.features) for d in DOMAINS) > 700
    assert undeclared_columns(DOMAINS) == []
    import dataclasses

    made_up = dataclasses.replace(DOMAINS[0], features=(("mystery_level", "bar"), ("odd_group", "category")))
    assert undeclared_columns([made_up]) == [f"{DOMAINS[0].domain_id}.mystery_level (bar): no declared range",
                                             f"{DOMAINS[0].domain_id}.odd_group (category): no level names"]


def test_unit_implied_ranges_hold_in_the_library():
    """The issue's examples: a heart rate is 20-250 bpm, percentages lie in 0-100, counts are whole and not negative."""
    from sandmle.synth.domain_library.readings import READINGS

    assert READINGS[("heart_rate", "bpm")].bounds == (20.0, 250.0)
    for (name, unit), reading in READINGS.items():
        if unit == "%":
            assert 0 <= reading.bounds[0] and reading.bounds[1] <= 100, name
        if unit == "count":
            assert reading.whole and reading.bounds[0] >= 0, name
        low, high = reading.band()
        assert reading.bounds[0] <= low < high <= reading.bounds[1], name
