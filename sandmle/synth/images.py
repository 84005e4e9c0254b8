"""Image generation: greyscale pixel grids that plant the spatial pattern an image rule family reads, plus noise.

Each generator returns (rows, side * side) pixel values in [0, top], rounded like the seed's pixels. The planted
pattern varies continuously (a bar's angle, a number of blobs, which quadrants are lit) and the hidden rule, designed
afterwards on a preview, cuts it into classes; so generation never needs the rule's parameters.
"""

from __future__ import annotations

import numpy as np

DEFAULT_PATTERN = "bright_quadrant"


def _background(rng: np.random.Generator, n_rows: int, side: int, top: float, *, base: float, noise: float) -> np.ndarray:
    return rng.uniform(0, base, size=(n_rows, 1, 1)) * top + rng.normal(0, noise * top, size=(n_rows, side, side))


def quadrant_images(rng: np.random.Generator, n_rows: int, side: int, top: float) -> np.ndarray:
    """One to three quadrants lit by a patch of random size and brightness, so that which quadrant is brightest on
    average is often a close call, over a dim, noisy background."""
    images = _background(rng, n_rows, side, top, base=0.3, noise=0.08)
    half = side // 2
    for row in range(n_rows):
        for quadrant in rng.choice(4, size=int(rng.integers(1, 4)), replace=False):
            height, width = rng.integers(max(half // 2, 1), half + 1, size=2)
            r = int(quadrant) // 2 * half + int(rng.integers(0, half - height + 1))
            c = int(quadrant) % 2 * half + int(rng.integers(0, half - width + 1))
            images[row, r:r + height, c:c + width] += rng.uniform(0.3, 0.7) * top
    return images


def bar_images(rng: np.random.Generator, n_rows: int, side: int, top: float) -> np.ndarray:
    """A straight bright bar at a uniformly random angle and offset; a second, fainter stroke as clutter."""
    images = _background(rng, n_rows, side, top, base=0.25, noise=0.07)
    rows, cols = np.mgrid[0:side, 0:side].astype(float)
    centre = (side - 1) / 2
    for row in range(n_rows):
        angle = rng.uniform(0, np.pi)
        # distance of each pixel from a line through a jittered centre along `angle`
        r0, c0 = centre + rng.uniform(-1, 1, size=2) * side / 4
        distance = np.abs(-(rows - r0) * np.cos(angle) + (cols - c0) * np.sin(angle))
        width = rng.uniform(0.6, 1.1)
        images[row] += rng.uniform(0.55, 0.8) * top * np.exp(-(distance / width) ** 2)
        if rng.random() < 0.5:  # a short dim blot that the orientation must be read through
            r1, c1 = rng.integers(0, side - 1, size=2)
            images[row, r1:r1 + 2, c1:c1 + 2] += rng.uniform(0.1, 0.25) * top
    return images


BLOB_SHAPES = ((2, 2), (2, 2), (1, 2), (2, 1), (2, 3), (3, 2), (1, 3), (3, 1))


def _place_boxes(rng: np.random.Generator, side: int, count: int, tries: int = 60) -> list[tuple[int, int, int, int]]:
    """Up to `count` boxes (row, col, height, width) anywhere on the grid, each a dark pixel away from the others."""
    boxes = []
    for _ in range(tries):
        if len(boxes) == count:
            break
        height, width = BLOB_SHAPES[int(rng.integers(len(BLOB_SHAPES)))]
        r, c = int(rng.integers(0, side - height + 1)), int(rng.integers(0, side - width + 1))
        if all(r > r2 + h2 or r2 > r + height or c > c2 + w2 or c2 > c + width for r2, c2, h2, w2 in boxes):
            boxes.append((r, c, height, width))
    return boxes


def blob_images(rng: np.random.Generator, n_rows: int, side: int, top: float, *, max_blobs: int = 4) -> np.ndarray:
    """One to `max_blobs` separate bright blobs of varied shapes anywhere on the grid, and up to two faint ones that
    stay below half brightness, over a dim background."""
    images = _background(rng, n_rows, side, top, base=0.15, noise=0.05)
    for row in range(n_rows):
        bright = int(rng.integers(1, max_blobs + 1))
        boxes = _place_boxes(rng, side, bright + int(rng.integers(0, 3)))
        for index, (r, c, height, width) in enumerate(boxes):
            level = rng.uniform(0.6, 0.85) if index < bright else rng.uniform(0.12, 0.25)
            images[row, r:r + height, c:c + width] += level * top
    return images


GENERATORS = {"bright_quadrant": quadrant_images, "bar_orientation": bar_images, "blob_count": blob_images}


def sample_images(*, side: int, top: float, n_rows: int, rng: np.random.Generator, pattern: str | None = None) -> np.ndarray:
    """(n_rows, side * side) integer-valued pixels in [0, top] planting `pattern` (an image rule family)."""
    pattern = pattern or DEFAULT_PATTERN
    if pattern not in GENERATORS:
        raise ValueError(f"no image generator for {pattern!r}; expected one of {', '.join(GENERATORS)}")
    if side < 6:
        raise ValueError(f"images need at least 6x6 pixels to hold a pattern; got {side}x{side}")
    images = GENERATORS[pattern](rng, n_rows, side, top)
    return np.clip(np.round(images), 0, top).reshape(n_rows, -1)
