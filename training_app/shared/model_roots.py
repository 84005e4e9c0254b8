"""Which checkpoint folders the studio lets a user train from or roll out with (`model`, `hf:` policies).

The model roots are the data directory's training output (`training/`), its `models/` folder and the folders the admin
lists in SANDMLE_MODEL_ROOTS. A path outside them is refused with the same words whatever exists there, before anything
is read from it, so the field cannot map the server's directories; a relative path is read inside the data directory.
Inside the training output, a user may load only the checkpoints of runs they launched (admins: any).
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from accounts.roles import Role, has_role
from studio.errors import ServiceError

OUTSIDE = "not under an allowed model folder"


def model_roots() -> list[Path]:
    data = Path(settings.DATA_DIR)
    listed = [Path(root) for root in getattr(settings, "SANDMLE_MODEL_ROOTS", [])]
    return [Path(os.path.realpath(root)) for root in [data / "training", data / "models", *listed]]


def _under(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def allowed_model_path(path: str, *, user=None, field: str = "model") -> str:
    """The checkpoint's real path if `user` may use it; else a ServiceError on `field` telling nothing of the disk."""
    text = (path or "").strip()
    if not text or "\x00" in text:
        raise ServiceError(OUTSIDE, field=field)
    candidate = Path(text) if Path(text).is_absolute() else Path(settings.DATA_DIR) / text
    # realpath follows links, so a link planted inside a root cannot lead out of it.
    resolved = Path(os.path.realpath(candidate))
    roots = model_roots()
    if not any(_under(resolved, root) for root in roots):
        raise ServiceError(OUTSIDE, field=field)
    if user is not None and not has_role(user, Role.ADMIN) and _under(resolved, roots[0]) and \
            not _own_training_output(resolved, user):
        raise ServiceError("not one of your training runs' checkpoints", field=field)
    return str(resolved)


def _own_training_output(path: Path, user) -> bool:
    from training_app.models import TrainingRun

    for output_dir in TrainingRun.objects.filter(created_by=user).values_list("output_dir", flat=True):
        if output_dir and _under(path, Path(os.path.realpath(output_dir))):
            return True
    return False


def allowed_policy(policy: str, *, user=None, field: str = "policy") -> str:
    """An `hf:` policy with its path checked and made real; any other policy as given."""
    if policy.startswith("hf:"):
        return "hf:" + allowed_model_path(policy[3:], user=user, field=field)
    return policy


def model_choices(user) -> list[str]:
    """The checkpoints a user may pick: their runs' checkpoints and the models in the other roots (config.json)."""
    from training_app.models import TrainingCheckpoint

    checkpoints = TrainingCheckpoint.objects.order_by("-run__created_at", "-step")
    if not has_role(user, Role.ADMIN):
        checkpoints = checkpoints.filter(run__created_by=user)
    choices = [path for path in checkpoints.values_list("path", flat=True)[:200]]
    for root in model_roots()[1:]:
        try:
            entries = sorted(root.iterdir())
        except OSError:
            continue
        choices += [str(entry) for entry in entries if (entry / "config.json").is_file()][:200]
    return choices
