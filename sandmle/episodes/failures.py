"""How many of a job's episodes ended in an error and why: a job whose every episode failed has failed itself.

An episode that raised (no sandbox, a dead endpoint, a broken bundle) becomes an "error" trajectory with reward 0
so its group still counts; a rollout batch, campaign or training run made only of those would otherwise report
"succeeded" with a medal rate of 0 and hide the reason in a worker log.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

# plain_error appends where the error was raised; the same failure raised from two call sites is one reason.
_LOCATION = re.compile(r" \(in sandmle/[^)]*\)$")


class EpisodesFailed(RuntimeError):
    """Every episode so far ended in an error: the job stops with the commonest reason rather than train on nothing."""


def failure_reason(error: str) -> str:
    """The error's first line without the engine location suffix."""
    first = (error or "").strip().splitlines()[0] if (error or "").strip() else "unknown error"
    return _LOCATION.sub("", first)


@dataclass(frozen=True)
class EpisodeFailures:
    episodes: int
    failed: int
    commonest_reason: str | None = None
    commonest_count: int = 0

    @property
    def share(self) -> float:
        return self.failed / self.episodes if self.episodes else 0.0

    @property
    def every_episode_failed(self) -> bool:
        return self.episodes > 0 and self.failed == self.episodes

    def job_error(self) -> str:
        """The line a job whose every episode failed ends with."""
        if self.commonest_count == self.failed:
            return f"every episode failed ({self.failed} of {self.episodes}): {self.commonest_reason}"
        return (f"every episode failed ({self.failed} of {self.episodes}); the commonest reason "
                f"({self.commonest_count} of {self.failed}): {self.commonest_reason}")

    def summary_line(self) -> str:
        """'3 of 10 episodes failed (30%), most often: <reason>', or '' when none failed."""
        if not self.failed:
            return ""
        return (f"{self.failed} of {self.episodes} episodes failed ({self.share:.0%}), most often "
                f"({self.commonest_count}): {self.commonest_reason}")

    @classmethod
    def from_dict(cls, data: dict) -> "EpisodeFailures":
        return cls(episodes=int(data.get("episodes", 0)), failed=int(data.get("failed", 0)),
                   commonest_reason=data.get("commonest_reason"), commonest_count=int(data.get("commonest_count", 0)))

    def to_dict(self) -> dict:
        return {"episodes": self.episodes, "failed": self.failed, "share": self.share,
                "commonest_reason": self.commonest_reason, "commonest_count": self.commonest_count,
                "line": self.summary_line()}


def tally_failures(errors: Iterable[str | None]) -> EpisodeFailures:
    """One entry per episode: its error text, or None for an episode that ran to its end."""
    episodes = 0
    reasons: Counter[str] = Counter()
    for error in errors:
        episodes += 1
        if error is not None:
            reasons[failure_reason(error)] += 1
    if not reasons:
        return EpisodeFailures(episodes=episodes, failed=0)
    reason, count = reasons.most_common(1)[0]
    return EpisodeFailures(episodes=episodes, failed=sum(reasons.values()), commonest_reason=reason,
                           commonest_count=count)


def trajectory_error(record: dict) -> str | None:
    """A trajectory record's error, if the episode ended in one."""
    if record.get("termination") == "error":
        return str(record.get("error") or "unknown error")
    return None
