"""What a finished set of episodes cannot tell, said as a warning beside its table: a transfer table at its ceiling
or floor (every cell 1.000 or 0.000) cannot tell scaffolds or policies apart, and groups with no reward spread give
GRPO no learning signal (the usual cause: G > 1 samples of the scripted baseline, which barely varies by seed).

Shown by `sandmle rollout` and `sandmle eval` on stderr and by the studio's batch and campaign pages, computed from
what their summaries already store, so results written before these warnings get them too.
"""

from __future__ import annotations

from sandmle.evaluation.metrics import RATE_FIELDS

EDGE_TOLERANCE = 1e-9
SCRIPTED_POLICIES = frozenset({"baseline"})
HARDER = "make the tasks harder (sandmle frontier --levels 1,2) or evaluate on another set"
EASIER = "make the tasks easier (sandmle frontier --levels -1,-2) or check the policies' format"


def ceiling_warning(cells: list[dict], metric: str = "medal_rate") -> str | None:
    """A rate that is 1 in every cell (solved everywhere) or 0 in every cell (solved nowhere)."""
    if metric not in RATE_FIELDS:
        return None
    means = [((cell.get("metrics") or {}).get(metric) or {}).get("mean") for cell in cells]
    means = [float(mean) for mean in means if isinstance(mean, (int, float))]
    if not means:
        return None
    where = "every cell" if len(means) > 1 else "the only cell"
    outcome = metric != "valid_rate"  # every valid submission is not a solved set: another metric may still tell
    if all(mean >= 1 - EDGE_TOLERANCE for mean in means):
        edge, advice = "ceiling", HARDER if outcome else "read a medal rate or the scores instead"
        value = "1.000"
    elif all(mean <= EDGE_TOLERANCE for mean in means):
        edge, advice = "floor", EASIER
        value = "0.000"
    else:
        return None
    return (f"{metric} is {value} in {where}: at this {edge} the table cannot tell scaffolds or policies apart; "
            f"{advice}.")


def spread_warning(comparison: dict | None, *, policies: list[str] | tuple[str, ...] = ()) -> str | None:
    """The reward schemes under which every group of the comparison (sandmle.rewards.comparison) earned one
    reward in all its episodes."""
    rows = [row for row in (comparison or {}).get("schemes") or []
            if row.get("groups") and row.get("zero_spread_share") is not None
            and row["zero_spread_share"] >= 1 - EDGE_TOLERANCE]
    if not rows:
        return None
    names = " and ".join(row["name"] for row in rows)
    groups = max(row["groups"] for row in rows)
    text = (f"All {groups} groups have no spread under the {names} reward{'s' if len(rows) > 1 else ''} (every "
            f"episode of a group earned the same): GRPO with {'these rewards' if len(rows) > 1 else 'it'} would have "
            "no learning signal on these tasks.")
    scripted = sorted(SCRIPTED_POLICIES.intersection(policies))
    if scripted:
        text += (f" The {', '.join(scripted)} policy is a scripted program that barely varies by seed, so G > 1 "
                 "of it says little about spread: measure it with a sampled policy (hf: or openai:) at a "
                 "temperature above 0.")
    return text
