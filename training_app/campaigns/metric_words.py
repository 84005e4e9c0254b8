"""Each campaign metric's readable label and the sentence that says what it measures (sandmle.evaluation.metrics)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricWords:
    name: str
    label: str
    meaning: str


_WORDS = {
    "medal_rate": ("Medal rate", "The share of episodes whose submission reached any medal (bronze or better) on the "
                                 "task's ladder."),
    "gold_rate": ("Gold rate", "The share of episodes whose submission reached the task's gold threshold."),
    "silver_rate": ("Silver rate", "The share of episodes whose submission reached silver, and no further."),
    "bronze_rate": ("Bronze rate", "The share of episodes whose submission reached bronze, and no further."),
    "valid_rate": ("Valid rate", "The share of episodes that left a submission the grader could score: the right "
                                 "file, rows and columns."),
    "above_median_rate": ("Above-median rate", "The share of episodes whose score beat the median milestone of the "
                                               "task's ladder."),
    "human_rank": ("HumanRank", "On a synthetic task, the rank against the task's reference leaderboard (its "
                                "calibration ladder): 1 matches the best reference, 0 is below every one or invalid."),
    "mean_turns": ("Turns", "The turns an episode took, as max_turns counts them (reviews, repairs and re-asks "
                            "excluded)."),
    "mean_tokens": ("Tokens", "The tokens the policy generated in an episode, over all its replies."),
    "mean_wall_s": ("Wall time (s)", "Seconds an episode took from its first turn to its grade."),
}


def metric_words(name: str) -> MetricWords:
    """The label and meaning of a metric; a name this table does not know reads as itself, spaces for underscores."""
    label, meaning = _WORDS.get(name, (name.replace("_", " ").capitalize(), ""))
    return MetricWords(name=name, label=label, meaning=meaning)
