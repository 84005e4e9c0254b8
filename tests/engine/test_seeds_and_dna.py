"""Seeds (bundled and CSV, with one clear message per bad input) and the DNA extracted from them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sandmle.seeds.dna import SCHEMA_VERSION, TaskDNA, extract_dna
from sandmle.seeds.load import SeedError, bundled_seed_names, load_bundled_seed, load_csv_seed


def test_bundled_seeds_cover_every_modality_and_task_type():
    seeds = [load_bundled_seed(name) for name in bundled_seed_names()]
    assert {(s.modality, s.task_type) for s in seeds} >= {("tabular", "multiclass"), ("tabular", "binary"),
                                                         ("tabular", "regression"), ("image", "multiclass")}


def test_dna_statistics_and_json_round_trip():
    dna = extract_dna(load_bundled_seed("breast_cancer"))
    assert (dna.task_type, dna.n_classes, dna.n_rows, dna.n_features) == ("binary", 2, 569, 30)
    assert abs(sum(dna.class_balance) - 1) < 1e-9 and dna.schema_version == SCHEMA_VERSION
    area = dna.features[3]  # mean area: right-skewed, positive
    assert area.skewness > 1 and area.bounded and len(area.quantiles) == 7
    data = json.loads(json.dumps(dna.to_dict()))
    assert TaskDNA.from_dict(data) == dna and data["feature_kinds"]["numeric"] == 30


def test_image_dna_has_pixels():
    dna = extract_dna(load_bundled_seed("digits"))
    assert dna.modality == "image" and dna.image_shape == [8, 8] and dna.features[0].kind == "pixel"


def test_csv_seed_with_text_column_is_text_modality():
    rng = np.random.default_rng(0)
    words = ["pump", "seal", "leak", "noise", "bearing", "valve", "motor", "hot", "cold", "fine"]
    frame = pd.DataFrame({"note": [" ".join(rng.choice(words, 8)) + f" #{i}" for i in range(80)],
                          "hours": rng.normal(size=80), "fault": rng.integers(0, 2, 80)})
    seed = load_csv_seed(frame.to_csv(index=False).encode(), target="fault")
    assert seed.modality == "text" and seed.task_type == "binary" and seed.metric == "roc_auc"
    assert extract_dna(seed).features[0].kind == "text"


@pytest.mark.parametrize("content, kwargs, field, words", [
    (b"", {"target": "y"}, "file", "empty"),
    (b"\xff\xfe\x81\x00", {"target": "y"}, "file", "utf-8"),
    (b'a,y\n1,"2\n', {"target": "y"}, "file", "parsed"),
    (b"a,y\n" + b"1,0\n" * 30, {"target": "z"}, "target", "no column"),
    (b"a,y\n" + b"1,0\n" * 30, {"target": "y"}, "target", "constant"),
    (b"a,y\n1,0\n2,1\n", {"target": "y"}, "file", "rows"),
    (b"a,y\n" + b"".join(f"{i},{i % 2}\n".encode() for i in range(40)), {"target": "y", "metric": "rmse"}, "metric", "does not fit"),
])
def test_bad_csv_seeds_say_what_is_wrong(content, kwargs, field, words):
    with pytest.raises(SeedError) as error:
        load_csv_seed(content, **kwargs)
    assert error.value.field == field and words in str(error.value).lower()
