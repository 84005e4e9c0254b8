"""Reading an uploaded task-set archive back into our bundles: unpacked by the hardened extractor, each task then
goes through its format's importer (sandmle.formats) or, for our own layout, a check of its grading file and hashes.

A task that cannot be imported is refused with its reason; the others still are. Task ids are checked before any
importer writes, so a hostile id cannot name a folder outside the output.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sandmle.untrusted import bounded_json
from sandmle.archives import ARCHIVE_FORMATS, printable_name, without_host_paths
from sandmle.archives.build import SANDMLE_ID_LIST
from sandmle.archives.extract import ExtractLimits, extract_archive
from sandmle.errors import UsageError
from sandmle.tasks.grading import load_grading

TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass
class ImportOutcome:
    bundles: list[Path] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)  # {"task": name, "reason": one line}


def _checked_id(task_id: object, where: str) -> str:
    if not isinstance(task_id, str) or not TASK_ID.match(task_id) or task_id.strip(".") != task_id:
        raise UsageError(f"{where}: {str(task_id)[:80]!r} is not a usable task id (letters, digits, . _ -)")
    return task_id


def _layout_root(root: Path) -> Path:
    """Archives usually wrap their content in one folder (ours do: <set>/); step into such wrappers."""
    for _ in range(2):
        children = [child for child in root.iterdir() if not child.name.startswith(".")]
        if len(children) == 1 and children[0].is_dir() and not _looks_like_content(children[0]) \
                and not (root / "competitions").is_dir():
            root = children[0]
        else:
            break
    return root


def _looks_like_content(folder: Path) -> bool:
    """A folder that is a task itself, or already a layout's root: not a wrapper to step into."""
    return any((folder / name).exists() for name in ("task.json", "prepared", "public", "private"))


def _import_bundle(source: Path, out_dir: Path) -> Path:
    """Our own bundle: a readable grading file, the answers and sample present, files matching task.json's hash."""
    from sandmle.tasks.bundle import bundle_hash, file_hashes

    try:
        # Its spec is stored in a JSON column, which refuses NaN: refused here, by name, instead of by the database.
        task = bounded_json.loads((source / "task.json").read_bytes())
    except (OSError, ValueError) as error:
        raise UsageError(f"task.json is not readable JSON ({error})") from None
    if not isinstance(task, dict):
        raise UsageError("task.json must hold a JSON object")
    task_id = _checked_id(task.get("task_id"), "task.json task_id")
    load_grading(source)
    for needed in ("public/sample_submission.csv", "private/answers.csv"):
        if not (source / needed).is_file():
            raise UsageError(f"{needed} is missing")
    recorded = task.get("bundle_sha256")
    if recorded and bundle_hash(file_hashes(source)) != recorded:
        raise UsageError("its files do not match task.json's bundle_sha256 (changed after it was built)")
    target = out_dir / task_id
    if target.exists():
        raise UsageError(f"{task_id} appears twice in the archive")
    for folder in ("public", "private"):
        shutil.copytree(source / folder, target / folder, symlinks=True)
    shutil.copyfile(source / "task.json", target / "task.json")
    return target


def _check_public_csvs(bundle: Path) -> None:
    """Every CSV an agent or a viewer will read passes the seed upload's check (size, width, formula cells)."""
    from sandmle.seeds.load import MAX_CSV_BYTES, SeedError, checked_csv

    public = bundle / "public"
    for path in sorted(public.rglob("*.csv")) if public.is_dir() else []:
        shown = path.relative_to(bundle).as_posix()
        if path.is_symlink() or not path.is_file():
            raise UsageError(f"{shown}: not a regular file")
        if path.stat().st_size > MAX_CSV_BYTES:
            raise UsageError(f"{shown}: {path.stat().st_size / 2**20:.1f} MiB; a public CSV is limited to "
                             f"{MAX_CSV_BYTES / 2**20:.0f} MiB")
        try:
            checked_csv(path.read_bytes())
        except SeedError as error:
            raise UsageError(f"{shown}: {error}") from None


def _candidates(root: Path, fmt: str) -> list[tuple[str, Path]]:
    if fmt == "mlebench":
        competitions = root / "competitions"
        if not competitions.is_dir():
            raise UsageError("an MLE-bench archive needs competitions/<id>/ folders (and data/<id>/prepared/)")
        return [(path.name, path) for path in sorted(competitions.iterdir()) if path.is_dir()]
    folders = [(path.name, path) for path in sorted(root.iterdir()) if path.is_dir() and not path.name.startswith(".")]
    if fmt == "sandmle" and (root / SANDMLE_ID_LIST).is_file():
        try:
            listed = bounded_json.loads((root / SANDMLE_ID_LIST).read_bytes())
        except (OSError, ValueError) as error:
            raise UsageError(f"{SANDMLE_ID_LIST} is not readable JSON ({error})") from None
        if not isinstance(listed, list):
            raise UsageError(f"{SANDMLE_ID_LIST} must hold a JSON list of task ids")
        wanted = {str(item) for item in listed}
        folders = [(name, path) for name, path in folders if name in wanted]
    if fmt == "bundle":
        folders = [(name, path) for name, path in folders if (path / "task.json").is_file()]
    return folders


def _import_one(name: str, source: Path, root: Path, out_dir: Path, *, fmt: str, metric: str | None) -> Path:
    from sandmle.formats import mlebench, sandmle_layout

    if fmt == "mlebench":
        import yaml

        try:
            config = yaml.safe_load((source / "config.yaml").read_text(encoding="utf-8")) or {}
        except (OSError, ValueError, yaml.YAMLError) as error:
            raise UsageError(f"config.yaml is not readable YAML ({str(error).splitlines()[0]})") from None
        _checked_id(config.get("id", name) if isinstance(config, dict) else None, "config.yaml id")
        return mlebench.import_competition(source, out_dir, data_dir=root / "data")
    _checked_id(name, "folder")
    if fmt == "sandmle":
        return sandmle_layout.import_folder(source, out_dir, metric=metric)
    return _import_bundle(source, out_dir)


def import_archive(archive: Path, out_dir: Path, *, fmt: str, metric: str | None = None,
                   limits: ExtractLimits = ExtractLimits()) -> ImportOutcome:
    """Unpack `archive` safely and import each task it holds into out_dir/<id>/; refusals are listed, not raised.

    The archive as a whole is refused (UsageError) when it cannot be unpacked safely or holds no task of `fmt`.
    """
    if fmt not in ARCHIVE_FORMATS:
        raise UsageError(f"format: expected one of {', '.join(ARCHIVE_FORMATS)}, not {fmt!r}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    outcome = ImportOutcome()
    with tempfile.TemporaryDirectory(prefix="sandmle-upload-", dir=out_dir) as scratch:
        unpacked = Path(scratch) / "unpacked"
        extract_archive(Path(archive), unpacked, limits=limits)
        root = _layout_root(unpacked)
        candidates = _candidates(root, fmt)
        if not candidates:
            raise UsageError(f"the archive holds no task in the {fmt} layout")
        for name, source in candidates:
            # Each importer writes into its own folder first: whatever it makes, only one bundle folder is kept.
            staging = Path(scratch) / "imported" / name
            staging.mkdir(parents=True)
            try:
                bundle = Path(_import_one(name, source, root, staging, fmt=fmt, metric=metric))
                if bundle.parent.resolve() != staging.resolve() or not (bundle / "private" / "grading.json").is_file():
                    raise UsageError("the importer wrote no bundle")
                load_grading(bundle)  # every format's grading numbers pass the one check (sandmle.tasks.grading_checks)
                _check_public_csvs(bundle)
                target = out_dir / bundle.name
                if target.exists():
                    raise UsageError(f"{bundle.name} is already in the output folder")
                shutil.move(str(bundle), target)
                outcome.bundles.append(target)
            except Exception as error:  # one hostile or broken task is refused; the archive's others still import
                reason = str(error) if isinstance(error, UsageError) else f"{type(error).__name__}: {error}"
                if isinstance(error, RecursionError):  # a YAML or CSV reader that recursed into what it read
                    reason = "a file of this task nests too deeply to be read"
                written = [child for child in staging.iterdir() if child.is_dir()] if staging.is_dir() else []
                reason = without_host_paths(reason, *written, staging, source, root, unpacked, scratch, out_dir)
                outcome.refused.append({"task": printable_name(name)[:100],
                                        "reason": printable_name(reason.splitlines()[0][:500] if reason else
                                                                 type(error).__name__)})
    return outcome
