"""Image tasks: the pixel generators, every image rule family, and synthesized image bundles with their PNG files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import TaskSpec, build_bundle, rules, synthesize, verify_bundle
from sandmle.synth.images import GENERATORS, sample_images
from sandmle.synth.rules.image import blob_counts, stroke_angles

LABELS = ["healthy", "rust", "blight", "spot"]


def _pixel_frame(pixels: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(pixels, columns=[f"px_{i}" for i in range(pixels.shape[1])])


def test_every_image_family_has_a_generator():
    assert set(rules.IMAGE_FAMILIES) == set(GENERATORS) and len(rules.IMAGE_FAMILIES) >= 3


@pytest.mark.parametrize("family", rules.IMAGE_FAMILIES)
def test_image_generation_is_deterministic_and_bounded(family):
    first = sample_images(side=8, top=16, n_rows=50, rng=np.random.default_rng(3), pattern=family)
    second = sample_images(side=8, top=16, n_rows=50, rng=np.random.default_rng(3), pattern=family)
    assert np.array_equal(first, second) and first.shape == (50, 64)
    assert first.min() >= 0 and first.max() <= 16 and np.array_equal(first, np.round(first))


@pytest.mark.parametrize("family", rules.IMAGE_FAMILIES)
@pytest.mark.parametrize("n_classes", [2, 4])
def test_image_rules_are_serialisable_reproduce_labels_and_use_every_class(family, n_classes):
    frame = _pixel_frame(sample_images(side=8, top=16, n_rows=400, rng=np.random.default_rng(0), pattern=family))
    rule = rules.design_rule(family, frame, n_classes=n_classes, rng=np.random.default_rng(1))
    stored = json.loads(json.dumps(rule))
    labels = rules.apply_rule(stored, frame)
    assert np.array_equal(labels, rules.apply_rule(rule, frame))
    assert 2 <= rule["n_classes"] <= n_classes
    shares = np.bincount(labels, minlength=rule["n_classes"]) / len(labels)
    assert shares.min() >= 0.4 / rule["n_classes"], shares
    described = rules.describe_rule(stored, label_names=LABELS[: rule["n_classes"]])
    assert len(described) > 40
    if family != "bright_quadrant":  # the newer families name each class in their description
        assert all(name in described for name in LABELS[: rule["n_classes"]])


def test_stroke_angles_read_the_direction_of_a_drawn_bar():
    bars = np.zeros((4, 9, 9))
    bars[0, 4, :] = 16  # horizontal
    bars[1, np.arange(9), np.arange(9)] = 16  # falling: top-left to bottom-right
    bars[2, :, 4] = 16  # vertical
    bars[3, np.arange(9), 8 - np.arange(9)] = 16  # rising
    difference = np.abs(stroke_angles(bars) - [0, 45, 90, 135]) % 180
    assert np.minimum(difference, 180 - difference).max() < 1.0  # 0 and 180 degrees are the same direction
    rule = {"family": "bar_orientation", "features": ["pixels"], "grid": 9, "n_classes": 4, "offset": 0.0}
    assert list(rules.apply_rule(rule, _pixel_frame(bars.reshape(4, -1)))) == [0, 1, 2, 3]


def test_blob_count_counts_separate_bright_groups_only():
    image = np.full((8, 8), 2.0)
    image[0:2, 0:2] = 14  # blob 1
    image[0:2, 4:7] = 13  # blob 2
    image[5, 1:4] = 15  # blob 3, a thin bar
    image[7, 7] = 16  # one bright pixel: too small to count
    image[5:7, 5:7] = 6  # a faint blob below the threshold
    assert list(blob_counts(image[None], threshold=8.0, min_pixels=2)) == [3]
    rule = {"family": "blob_count", "features": ["pixels"], "grid": 8, "threshold": 8.0, "min_pixels": 2,
            "cuts": [1.5, 2.5], "n_classes": 3}
    assert list(rules.apply_rule(rule, _pixel_frame(image.reshape(1, -1)))) == [2]
    assert "1 -> a; 2 -> b; 3 or more -> c" in rules.describe_rule(rule, label_names=["a", "b", "c"])


@pytest.fixture(scope="module")
def image_tasks(tmp_path_factory):
    out = tmp_path_factory.mktemp("images")
    seed = load_bundled_seed("digits")
    return {family: synthesize(seed, count=1, rng=2, out_dir=out, families=(family,))[0]
            for family in ("bar_orientation", "blob_count")}


@pytest.mark.parametrize("family", ["bar_orientation", "blob_count"])
def test_synthesized_image_tasks_validate_and_list_their_pngs(image_tasks, family):
    task = image_tasks[family]
    assert task.status == "validated", task.reasons
    root = Path(task.bundle_dir)
    assert json.loads((root / "private/rule.json").read_text())["family"] == family
    train, test = pd.read_csv(root / "public/train.csv"), pd.read_csv(root / "public/test.csv")
    assert list(test.columns) == ["id", "image"]
    listed = pd.concat([train["image"], test["image"]])
    assert (listed == "images/" + pd.concat([train["id"], test["id"]]) + ".png").all()
    on_disk = {f"images/{path.name}" for path in (root / "public/images").iterdir()}
    assert on_disk == set(listed)
    with Image.open(root / "public" / listed.iloc[0]) as picture:
        assert picture.mode == "L" and picture.size == (8, 8)
    assert "images/" in (root / "public/description.md").read_text()


def test_image_bundles_rebuild_byte_for_byte(image_tasks, tmp_path):
    task = image_tasks["blob_count"]
    original = Path(task.bundle_dir)
    assert verify_bundle(original)
    rebuilt = build_bundle(TaskSpec.from_dict(json.loads((original / "task.json").read_text())["spec"]), tmp_path)
    pngs = sorted((original / "public/images").iterdir())
    assert pngs and all((rebuilt / "public/images" / png.name).read_bytes() == png.read_bytes() for png in pngs)


def test_bright_quadrant_reads_the_brightest_quadrant():
    pixels = np.zeros((4, 64))
    for quadrant, (r, c) in enumerate([(0, 0), (0, 4), (4, 0), (4, 4)]):
        image = np.zeros((8, 8))
        image[r:r + 4, c:c + 4] = 16
        pixels[quadrant] = image.ravel()
    frame = pd.DataFrame(pixels, columns=[f"px_{i}" for i in range(64)])
    rule = rules.design_rule("bright_quadrant", frame, n_classes=10, rng=np.random.default_rng(0))
    assert list(rules.apply_rule(rule, frame)) == [0, 1, 2, 3]
