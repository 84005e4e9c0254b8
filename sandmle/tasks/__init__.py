"""A task bundle's files, its grading (checks, metrics) and the grader's report."""
