"""Limits on latency tables as they stream in: the per-file cap and each user's quota, checked chunk by chunk by a
Django upload handler, so an oversized upload is cut off before Django stores it; and the tables' lifetime.

A study's table is kept while the study may still run (queued or running) and removed when it ends (succeeded, failed
or cancelled): its figures live in the result. The quota counts the tables a user's unfinished studies keep.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload

from sandmle_web.jobs import JobState
from training_app.models import LatencyStudy

TABLE_FIELD = "table"
_UNFINISHED = (JobState.QUEUED, JobState.RUNNING)


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


def table_quota_bytes() -> int:
    return int(settings.SANDMLE_LATENCY_TABLE_QUOTA_BYTES)


def table_bytes_kept(user) -> int:
    """What the user's unfinished studies' tables take on disk now."""
    if user is None or not getattr(user, "is_authenticated", False):
        return 0
    total = 0
    for path in LatencyStudy.objects.filter(created_by=user, state__in=_UNFINISHED).exclude(table_path="") \
            .values_list("table_path", flat=True):
        try:
            total += os.stat(path).st_size
        except OSError:
            continue
    return total


def table_allowance(user) -> tuple[int, str]:
    """How many bytes the user's next table may have, and the sentence that says why when it is over."""
    from sandmle.latency.study import LARGE_CSV_MAX_BYTES

    room = table_quota_bytes() - table_bytes_kept(user)
    if room < LARGE_CSV_MAX_BYTES:
        return max(room, 0), (f"your unfinished studies keep {_size(table_bytes_kept(user))} of tables; the quota is "
                              f"{_size(table_quota_bytes())} per user (a table is removed when its study ends)")
    return LARGE_CSV_MAX_BYTES, f"the limit is {_size(LARGE_CSV_MAX_BYTES)} per table"


class LatencyTableLimit(FileUploadHandler):
    """First in the chain: passes chunks on while the table stays within its allowance, stops the upload past it."""

    def __init__(self, request=None):
        super().__init__(request)
        self.refused = ""
        self._allowance: int | None = None

    def new_file(self, field_name, *args, **kwargs):
        super().new_file(field_name, *args, **kwargs)
        if field_name == TABLE_FIELD and self._allowance is None:
            # The user is known by now: the session's, or the one DRF's authentication set on this request.
            self._allowance, self._reason = table_allowance(getattr(self.request, "user", None))

    def receive_data_chunk(self, raw_data, start):
        if self.field_name == TABLE_FIELD and start + len(raw_data) > self._allowance:
            self.refused = f"the file is larger than {_size(self._allowance)}: {self._reason}"
            raise StopUpload(connection_reset=False)  # the rest of the body is read and dropped, never stored
        return raw_data

    def file_complete(self, file_size):
        return None


def limit_table_upload(request) -> LatencyTableLimit:
    """Put the limit first among the request's upload handlers; call before anything reads request.POST/FILES."""
    handler = LatencyTableLimit(request)
    request.upload_handlers.insert(0, handler)
    return handler


def remove_table(study: LatencyStudy) -> None:
    """Remove a study's uploaded table folder (only ever one under the data directory's latency/)."""
    from sandmle.sandbox.host_files import remove_tree

    if not study.table_path:
        return
    folder = Path(study.table_path).parent
    root = Path(settings.DATA_DIR) / "latency"
    if folder.parent.resolve() == root.resolve():
        remove_tree(folder)
    LatencyStudy.objects.filter(id=study.id).update(table_path="")


def sweep_finished_tables() -> int:
    """Remove the tables of studies that ended without their worker doing it (a lost job the sweep failed)."""
    ended = LatencyStudy.objects.exclude(state__in=_UNFINISHED).exclude(table_path="")
    count = 0
    for study in ended:
        remove_table(study)
        count += 1
    return count
