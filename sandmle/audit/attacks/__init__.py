"""The built-in attacks, one module per family; importing this package registers them all, in the report's order."""

from sandmle.audit.attacks import hunting  # noqa: F401  (first: the order of the report)
from sandmle.audit.attacks import files  # noqa: F401
from sandmle.audit.attacks import submissions  # noqa: F401
from sandmle.audit.attacks import feedback  # noqa: F401
from sandmle.audit.attacks import escapes  # noqa: F401
