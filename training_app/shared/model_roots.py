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
from sandmle_web.errors import ServiceError

OUTSIDE = "not under an allowed model folder"
# The reply-menu tiny model (sandmle.rl.tiny_model), offered to every curator and built the first time it is picked:
# a run from it visibly learns on a CPU (the cpu-smoke preset). Relative: read inside the data directory.
TINY_MODEL = "models/tiny-reply-menu-qwen3"


def outside_message() -> str:
    """The refusal, naming the allowed folders (the same words whatever was asked, so it maps nothing else)."""
    listed = [str(root) for root in getattr(settings, "SANDMLE_MODEL_ROOTS", [])]
    allowed = ["models/ in the data directory", "your runs' checkpoints under training/", *listed]
    return f"{OUTSIDE}; the allowed ones are {', '.join(allowed)}"


def ensure_tiny_model(path: str) -> None:
    """Builds the reply-menu tiny model when `path` names it and it is not there yet (seconds, once)."""
    if path.strip().removeprefix("hf:") not in (TINY_MODEL, str(Path(settings.DATA_DIR) / TINY_MODEL)):
        return
    target = Path(settings.DATA_DIR) / TINY_MODEL
    if not (target / "config.json").is_file():
        from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
        from sandmle.rl.tiny_model import build_tiny_checkpoint

        build_tiny_checkpoint(target, reply_menu=TABULAR_REPLY_MENU)


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
        raise ServiceError(outside_message(), field=field)
    candidate = Path(text) if Path(text).is_absolute() else Path(settings.DATA_DIR) / text
    # realpath follows links, so a link planted inside a root cannot lead out of it.
    resolved = Path(os.path.realpath(candidate))
    roots = model_roots()
    if not any(_under(resolved, root) for root in roots):
        raise ServiceError(outside_message(), field=field)
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


def model_choices(user) -> list[tuple[str, str]]:
    """(path, label) of the models a user may pick: the tiny reply-menu model, their finished runs' checkpoints and
    the models in the other roots (folders with config.json)."""
    from training_app.models import TrainingCheckpoint

    choices = [(TINY_MODEL, "tiny reply-menu Qwen3 (2 layers, learns on a CPU; built when first used)")]
    checkpoints = TrainingCheckpoint.objects.filter(run__state="succeeded").select_related("run").order_by(
        "-run__created_at", "-step")
    if not has_role(user, Role.ADMIN):
        checkpoints = checkpoints.filter(run__created_by=user)
    choices += [(c.path, f"run #{c.run_id} {c.run.name} · step {c.step}".replace("  ", " ")) for c in checkpoints[:200]]
    tiny = os.path.realpath(Path(settings.DATA_DIR) / TINY_MODEL)
    for root in model_roots()[1:]:
        try:
            entries = sorted(root.iterdir())
        except OSError:
            continue
        choices += [(str(entry), f"{entry.name} (in {root.name}/)") for entry in entries
                    if (entry / "config.json").is_file() and os.path.realpath(entry) != tiny][:200]
    return choices
