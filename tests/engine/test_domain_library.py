"""The domain library: its size and sector spread, coherent names and units, and domains for every modality."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

from sandmle.dna import extract_dna
from sandmle.seeds import load_csv_seed
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
