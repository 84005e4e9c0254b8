"""sandmle.untrusted.bounded_json: JSON we did not write is refused past MAX_DEPTH without recursing into it, brackets inside
strings are text, and NaN is refused unless asked for; and sandmle.archives.without_host_paths, which makes an
import's refusal read relative to the bundle."""

from __future__ import annotations

import json

import pytest

from sandmle.untrusted import bounded_json
from sandmle.archives import without_host_paths
from sandmle.untrusted.bounded_json import MAX_DEPTH, TooDeeplyNested, nesting_depth


@pytest.mark.parametrize("text, depth", [
    ("3", 0), ('"[[[["', 0), ("[]", 1), ('{"a": [1, {"b": "]]]"}]}', 3), ('["\\"[", [["x\\\\"]]]', 3),
    (b"[[[]]]", 3), ("[" * 5000 + "]" * 5000, 5000), ("[" * 50_000, 50_000),
])
def test_nesting_depth_counts_arrays_and_objects_not_brackets_in_strings(text, depth):
    assert nesting_depth(text) == depth


def test_loads_refuses_past_the_depth_as_a_value_error_and_reads_up_to_it():
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert bounded_json.loads(at_limit) == json.loads(at_limit)
    for too_deep in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), '{"a":' * 5000 + "1" + "}" * 5000):
        with pytest.raises(TooDeeplyNested, match=f"nested deeper than {MAX_DEPTH} levels"):
            bounded_json.loads(too_deep)
    assert issubclass(TooDeeplyNested, ValueError)  # every caller's `except ValueError` turns it into its refusal


def test_nan_and_infinity_are_refused_unless_allowed():
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ValueError, match=f"{constant} is not a JSON number"):
            bounded_json.loads(f'{{"spec": {{"x": {constant}}}}}')
    assert bounded_json.loads("[NaN]", allow_nan=True)[0] != bounded_json.loads("[NaN]", allow_nan=True)[0]


def test_refusals_read_relative_to_the_bundle():
    bundle = "/data/bundles/import-4-ab12/task-a"
    text = f"{bundle}/private/grading.json lacks milestones; {bundle}-b/x; see {bundle}: gone"
    assert without_host_paths(text, bundle, "/data/bundles/import-4-ab12") == \
        "private/grading.json lacks milestones; task-a-b/x; see .: gone"
