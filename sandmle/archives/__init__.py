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
    import re

    spellings = {str(spelling).rstrip(os.sep) for folder in folders if folder
                 for spelling in (folder, os.path.realpath(folder))}
    for spelling in sorted(filter(None, spellings), key=len, reverse=True):
        # The folder itself reads ".", a path inside it reads relative; "/x/ab" is not inside "/x/a".
        text = re.sub(re.escape(spelling) + r"(?:/|(?![\w.-]))", lambda match: "" if match.group().endswith("/")
                      else ".", text)
    return text
