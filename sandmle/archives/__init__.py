"""Task sets as archives: build one in the MLE-bench, SandMLE or our bundle layout, and read one back safely."""

ARCHIVE_FORMATS = ("mlebench", "sandmle", "bundle")


def printable_name(text: object) -> str:
    """`text` with any undecodable byte of an archive name (Python keeps it as a lone surrogate) written as a \\udcXX
    escape: what a JSON column, a page or a log can hold."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def without_host_paths(text: str, *folders) -> str:
    """`text` with every mention of `folders` (the task's unpacked source, its staging and output folders) cut away,
    so a path inside reads relative to the bundle ("private/grading.json: ..."): an import's refusal is shown to
    reviewers, and the host's data directory is not theirs to learn. The deepest folder is cut first."""
    import os

    spellings = {spelling for folder in folders if folder
                 for spelling in (str(folder), os.path.realpath(folder))}
    for spelling in sorted(spellings, key=len, reverse=True):
        text = text.replace(spelling.rstrip(os.sep) + os.sep, "").replace(spelling.rstrip(os.sep), ".")
    return text
