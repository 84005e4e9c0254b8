"""Gives each pytest-xdist worker process a data directory of its own (test database, filesystem broker, bundles).

Loaded with `-p` (pyproject's addopts) because pytest-django reads Django's settings before any conftest runs, and
two workers sharing one filesystem-broker folder would take each other's Celery messages.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    _base = os.environ.get("SANDMLE_DATA_DIR") or tempfile.mkdtemp(prefix="sandmle-test-")
    os.environ["SANDMLE_DATA_DIR"] = str(Path(_base) / _worker)
