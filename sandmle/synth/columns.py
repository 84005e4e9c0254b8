"""What each generated column holds (identifier, numeric, categorical, text, pixel, image): the one place that rules,
noise and calibration ask, so a new modality teaches all three by extending `feature_kind`."""

from __future__ import annotations

import pandas as pd

from sandmle.seeds.load import is_text_column

ID_COLUMN = "id"
IMAGE_COLUMN = "image"
PIXEL_PREFIX = "px_"


def feature_kind(name: str, values: pd.Series) -> str:
    """The kind of one column: identifier, pixel, image, numeric, text or categorical."""
    if name == ID_COLUMN:
        return "identifier"
    if name.startswith(PIXEL_PREFIX):
        return "pixel"
    if name == IMAGE_COLUMN:
        return "image"
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return "numeric"
    return "text" if is_text_column(values) else "categorical"


def column_kinds(frame: pd.DataFrame) -> dict[str, str]:
    return {str(name): feature_kind(str(name), frame[name]) for name in frame.columns}


def columns_of_kind(frame: pd.DataFrame, *kinds: str) -> list[str]:
    """The columns of `frame` whose kind is one of `kinds`, in frame order."""
    return [name for name, kind in column_kinds(frame).items() if kind in kinds]


def level_names(count: int) -> list[str]:
    """Generic names for the levels of a categorical column: level_a, level_b, ..., level_z, level_ba, ..."""
    names = []
    for index in range(count):
        letters, rest = "", index
        while True:
            letters = chr(ord("a") + rest % 26) + letters
            rest //= 26
            if not rest:
                break
        names.append(f"level_{letters}")
    return names
