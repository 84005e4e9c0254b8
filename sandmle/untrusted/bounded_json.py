"""JSON we did not write (request bodies, imported task.json and grading.json, a step's output), read with a bound on
its nesting and without NaN.

Python's parser recurses once per level: ten kilobytes of "[[[[" end in a RecursionError, a 500 in a view, instead of
a refusal. The depth is counted first, in one pass that never recurses, and text past MAX_DEPTH is refused with a
ValueError, the error every caller of json.loads already turns into its own readable refusal.
"""

from __future__ import annotations

import json
import re

import numpy as np

# Far deeper than any file or body we write (a TaskSpec nests about six levels), far shallower than the parser's limit.
MAX_DEPTH = 100

# Strings are cut out first (a bracket inside one is text); the unrolled form never backtracks.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_STEP = np.zeros(256, dtype=np.int32)
_STEP[list(b"[{")], _STEP[list(b"]}")] = 1, -1


class TooDeeplyNested(ValueError):
    """The text nests arrays and objects deeper than the reader allows."""


def nesting_depth(text: str | bytes) -> int:
    """The deepest level of arrays and objects in `text` (0 for a scalar).

    Every step runs in C (a regular expression, bytes.translate, a cumulative sum), so a 20 MB body is counted in
    well under a second whatever its shape."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return int(np.cumsum(_STEP[np.frombuffer(brackets, dtype=np.uint8)]).max())


def check_depth(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> None:
    if nesting_depth(text) > max_depth:
        raise TooDeeplyNested(f"nested deeper than {max_depth} levels of arrays and objects")


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number (write null, or a finite number)")


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, allow_nan: bool = False):
    """json.loads with the nesting bound; NaN and Infinity are refused unless allow_nan (a database's JSON column
    and the browser's JSON.parse refuse them both)."""
    check_depth(text, max_depth=max_depth)
    if allow_nan:
        return json.loads(text)
    return json.loads(text, parse_constant=_refuse_constant)


__all__ = ["MAX_DEPTH", "TooDeeplyNested", "check_depth", "loads", "nesting_depth"]
