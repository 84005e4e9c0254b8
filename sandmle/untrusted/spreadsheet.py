"""Cells a spreadsheet would run as a formula (OWASP's "CSV injection"): one test for every CSV the studio reads from
a person (seed uploads, imported bundles' public files) or writes for one (report exports).

A spreadsheet skips leading spaces before it looks for "=", so " =1+1" is a formula too: the prefix is looked for
both in the cell as written (a leading tab or carriage return is itself a prefix) and after its leading whitespace.
"""

from __future__ import annotations

import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def runs_as_formula(text: object) -> bool:
    text = str(text)
    return text.startswith(FORMULA_PREFIXES) or text.lstrip().startswith(FORMULA_PREFIXES)


def formula_cells(texts: pd.Series) -> pd.Series:
    """The mask of `texts` (strings) that runs_as_formula would flag, computed column-wise."""
    return texts.str.startswith(FORMULA_PREFIXES) | texts.str.lstrip().str.startswith(FORMULA_PREFIXES)


def spreadsheet_safe(text: object) -> str:
    """A leading quote keeps a spreadsheet from running a cell we export as a formula."""
    text = str(text)
    return "'" + text if runs_as_formula(text) else text


__all__ = ["FORMULA_PREFIXES", "formula_cells", "runs_as_formula", "spreadsheet_safe"]
