"""Row ids read from a query string, as bounded integers: a list or compare view never hands the database a number
it cannot hold (SQLite's integers end at 2**63 - 1), nor an unbounded list of them."""

from __future__ import annotations

MAX_ID_DIGITS = 18  # below 2**63 - 1: any id a row can have, and nothing SQLite or PostgreSQL overflows on
MAX_IDS = 20  # a compare page lays its rows side by side; more would not read


def row_ids(values: list[str], *, field: str) -> list[int]:
    """The distinct positive ids in `values`, in their order; ValueError saying what `field` expects otherwise."""
    if len(values) > MAX_IDS:
        raise ValueError(f"{field}: at most {MAX_IDS} numbers, not {len(values)}")
    ids = []
    for value in values:
        raw = value.strip()
        if not (raw.isascii() and raw.isdigit() and len(raw) <= MAX_ID_DIGITS) or int(raw) < 1:
            raise ValueError(f"{field}: {raw[:24]!r} is not a number from 1 to {10 ** MAX_ID_DIGITS - 1}")
        ids.append(int(raw))
    return list(dict.fromkeys(ids))
