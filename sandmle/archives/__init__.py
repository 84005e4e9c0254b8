"""Task sets as archives: build one in the MLE-bench, SandMLE or our bundle layout, and read one back safely."""

ARCHIVE_FORMATS = ("mlebench", "sandmle", "bundle")
