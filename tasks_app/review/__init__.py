"""The review workflow: decisions with reasons, the quorum, assignments, threaded comments, audit history."""
