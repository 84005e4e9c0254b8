"""Grading is bounded: a submission over the task's cap is refused before it is read, and a hostile one under the cap
is refused by the streaming structure pass before pandas, quickly and in little memory."""

from __future__ import annotations

import os
import resource
import time

import pytest

from sandmle.tasks.grading import (answer_row_count, grade_submission, load_grading, submission_byte_cap,
                                   validate_submission)
from tests.engine.rollout_bundles import make_bundle


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("bounds"), kind="binary")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_cap_follows_the_task_size_and_leaves_room_for_real_submissions(task):
    grading, rows = load_grading(task), answer_row_count(task)
    cap = submission_byte_cap(grading, rows)
    # The sample submission is a real one; a 17-digit float per row is still far under the cap.
    assert (task / "public" / "sample_submission.csv").stat().st_size * 20 < cap
    assert cap < 4 << 20


def test_a_250_mb_submission_is_refused_before_it_is_read(task, tmp_path):
    huge = tmp_path / "submission.csv"
    with huge.open("wb") as out:
        out.write(b"id,label\n")
        out.truncate(250 << 20)
    rss_before, started = peak_rss_mb(), time.monotonic()
    report = grade_submission(task, huge)
    assert time.monotonic() - started < 3.0
    assert peak_rss_mb() - rss_before < 200
    assert not report.valid_submission and report.submission_exists
    assert report.errors == ["submission submission.csv is 250.0 MB, more than the 1.0 MB allowed; it was not read"]


@pytest.mark.parametrize("content, expected", [
    ("," * 900_000 + "\n", "wrong columns"),
    ("id,label\n" + "1,0.5\n" * 150_000, "more than"),
    ("id,label\n1,0.5," + "x," * 1000 + "\n", "line 2 has 1003 fields"),
])
def test_hostile_submissions_under_the_cap_are_refused_by_structure(task, tmp_path, content, expected):
    path = tmp_path / "s.csv"
    path.write_text(content)
    started = time.monotonic()
    [error] = validate_submission(task, path)
    assert time.monotonic() - started < 3.0
    assert expected in error and len(error) < 400


def test_a_linked_submission_is_invalid_and_says_nothing_of_its_target(task, tmp_path):
    os.symlink("/etc/passwd", tmp_path / "submission.csv")
    report = grade_submission(task, tmp_path / "submission.csv")
    assert report.errors == ["submission submission.csv is a symbolic link; only regular files are graded or copied"]
    assert not report.valid_submission
