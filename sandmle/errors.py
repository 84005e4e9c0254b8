"""Errors the engine raises for bad input; the CLI prints them as one line and exits 2."""


class UsageError(ValueError):
    """The caller asked for something that cannot be done as asked (a bad path, column, option)."""
