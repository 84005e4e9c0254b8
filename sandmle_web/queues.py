"""The named set of Celery queues, each consumed by its own worker deployment (after PostHog)."""

from enum import StrEnum


class Queue(StrEnum):
    DEFAULT = "default"  # bookkeeping, synthesis, exports
    SANDBOX = "sandbox"  # CPU work that runs untrusted agent code
    GPU = "gpu"  # policy inference and training next to the model
