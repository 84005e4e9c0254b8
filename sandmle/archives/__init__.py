"""Task sets as archives: build one in the MLE-bench, SandMLE or our bundle layout, and read one back safely."""

ARCHIVE_FORMATS = ("mlebench", "sandmle", "bundle")


def printable_name(text: object) -> str:
    """`text` with any undecodable byte of an archive name (Python keeps it as a lone surrogate) written as a \\udcXX
    escape: what a JSON column, a page or a log can hold."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")
