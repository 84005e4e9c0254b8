"""The built-in attacks, one module per family; importing this package registers them all, in the report's order,
and `select_attacks` picks from them."""

# The registry keeps registration order, which is the report's: hunting first (not sorted on purpose).
from sandmle.audit.attacks import hunting  # noqa: F401, I001
from sandmle.audit.attacks import files  # noqa: F401
from sandmle.audit.attacks import submissions  # noqa: F401
from sandmle.audit.attacks import feedback  # noqa: F401
from sandmle.audit.attacks import escapes  # noqa: F401
from sandmle.audit.registry import ATTACKS, FAMILIES, Attack
from sandmle.errors import UsageError


def select_attacks(names: list[str] | None = None, *, families: list[str] | None = None) -> list[Attack]:
    """The attacks named (all by default), in registry order; unknown names raise UsageError."""
    unknown = sorted(set(names or []) - set(ATTACKS)) + sorted(set(families or []) - set(FAMILIES))
    if unknown:
        raise UsageError(f"unknown attack or family {unknown[0]!r}; attacks: {', '.join(ATTACKS)}; "
                         f"families: {', '.join(FAMILIES)}")
    chosen = [attack for attack in ATTACKS.values() if (not names or attack.name in names)
              and (not families or attack.family in families)]
    if not chosen:
        raise UsageError("no attack selected")
    return chosen
