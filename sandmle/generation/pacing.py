"""When a batch of turns should stop waiting: the typical time episodes work between turns, and who is a straggler.

Between a reply and its next turn an episode runs a sandbox step (before its first turn: its setup). Those times
spread out, most of all when many steps share a few cores, so a fixed short wait splits one turn's batch in several.
TurnPacing learns the spread instead: it keeps a window of observed work times (reply returned, or episode announced,
to the next turn submitted), and says until when a batch should wait for each episode still working: since it began
+ margin x the window's p90 + a small grace. An episode past that is a straggler and no longer holds the batch; the
others go out without it. First turns and later turns are learned apart (setup is not a sandbox step) until enough of
a kind is seen; until then each kind borrows every observation.
"""

from __future__ import annotations

import collections
import math
from typing import Hashable

FIRST = "first"  # from the episode's announcement (or start) to its first turn: setup
STEP = "step"  # from a reply returned to the episode's next turn: a sandbox step

DEFAULT_MARGIN = 2.0
DEFAULT_GRACE_S = 0.05  # turns that arrive this close together are one arrival (thread wake-ups, clock noise)
DEFAULT_QUANTILE = 0.9
DEFAULT_WINDOW = 128
MIN_OWN_OBSERVATIONS = 8


class TurnPacing:
    """Not thread-safe: the TurnBatcher calls it under its own lock, with the time of each event."""

    def __init__(self, *, margin: float = DEFAULT_MARGIN, grace_s: float = DEFAULT_GRACE_S,
                 quantile: float = DEFAULT_QUANTILE, window: int = DEFAULT_WINDOW) -> None:
        if margin < 1.0 or grace_s < 0.0 or not 0.0 < quantile <= 1.0 or window < 1:
            raise ValueError("pacing needs margin >= 1, grace_s >= 0, 0 < quantile <= 1 and window >= 1")
        self.margin = margin
        self.grace_s = grace_s
        self.quantile = quantile
        self.observed: dict[str, collections.deque[float]] = {FIRST: collections.deque(maxlen=window),
                                                              STEP: collections.deque(maxlen=window)}
        self._working: dict[Hashable, tuple[float, str]] = {}  # episode -> (since, kind)
        self._announced: collections.deque[float] = collections.deque()  # times of expect()ed, unstarted episodes

    def announce(self, count: int, now: float) -> None:
        """`count` episodes are about to start: their setup is counted from now (thread start-up included)."""
        self._announced.extend([now] * count)

    def start(self, episode: Hashable, now: float) -> None:
        since = self._announced.popleft() if self._announced else now
        self._working[episode] = (since, FIRST)

    def end(self, episode: Hashable) -> None:
        self._working.pop(episode, None)

    def submit(self, episode: Hashable, now: float) -> None:
        """The episode's turn arrived: its work time joins the window."""
        entry = self._working.pop(episode, None)
        if entry is not None:
            since, kind = entry
            self.observed[kind].append(max(0.0, now - since))

    def answer(self, episode: Hashable, now: float) -> None:
        """The episode's reply came back: its next step starts now."""
        self._working[episode] = (now, STEP)

    def typical_s(self, kind: str) -> float:
        """The window's p90 of this kind's work times (every kind's while this one has few), 0 with none."""
        values = list(self.observed[kind])
        if len(values) < MIN_OWN_OBSERVATIONS:
            values = [v for window in self.observed.values() for v in window]
        if not values:
            return 0.0
        values.sort()
        return values[min(len(values) - 1, math.ceil(self.quantile * len(values)) - 1)]

    def wait_until(self) -> float | None:
        """The latest time a working episode is still expected (past ones are stragglers); None if none is known."""
        deadlines = [since + self.margin * self.typical_s(kind) + self.grace_s
                     for since, kind in list(self._working.values()) + [(t, FIRST) for t in self._announced]]
        return max(deadlines) if deadlines else None
