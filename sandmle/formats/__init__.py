"""Benchmark layouts: MLE-bench and SandMLE export, and import of MLE-bench, MLE-Dojo and SandMLE folders into our bundles."""

FORMATS = ("mlebench", "mledojo", "sandmle")
