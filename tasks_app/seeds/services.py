"""Writes of seeds: the bundled ones, uploaded CSVs (validated by the engine) and their DNA."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.db import transaction

from sandmle.seeds import load as engine_seeds
from sandmle.seeds.dna import extract_dna
from sandmle_web.errors import ServiceError
from tasks_app.models import Seed, TaskDNA

SEED_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{1,79}$")


def _seed_store(*, engine_seed, source: str, csv_path: str = "", user=None) -> Seed:
    dna = extract_dna(engine_seed)
    dna_data = dna.to_dict()
    seed = Seed.objects.create(
        name=engine_seed.name,
        source=source,
        target=engine_seed.target,
        task_type=engine_seed.task_type,
        metric=engine_seed.metric,
        modality=engine_seed.modality,
        n_rows=int(dna_data.get("n_rows", len(engine_seed.frame))),
        n_features=int(dna_data.get("n_features", engine_seed.frame.shape[1] - 1)),
        csv_path=csv_path,
        created_by=user,
    )
    TaskDNA.objects.create(seed=seed, schema_version=int(dna_data["schema_version"]), data=dna_data)
    return seed


@transaction.atomic
def seeds_load_bundled() -> list[Seed]:
    """Store every bundled seed (scikit-learn's shipped datasets) not stored yet; idempotent."""
    created = []
    for name in engine_seeds.bundled_seed_names():
        if not Seed.objects.filter(name=name).exists():
            created.append(_seed_store(engine_seed=engine_seeds.load_bundled_seed(name), source=Seed.Source.BUNDLED))
    return created


def seed_create_from_upload(
    *, name: str, content: bytes, target: str, task_type: str = "", metric: str = "", user=None
) -> Seed:
    """Validate an uploaded CSV as a seed, keep the file under the data dir and store its DNA."""
    if not SEED_NAME_PATTERN.match(name or ""):
        raise ServiceError("use 2-80 lowercase letters, digits, '-' or '_', starting with a letter or digit", field="name")
    if Seed.objects.filter(name=name).exists():
        raise ServiceError(f"a seed named {name!r} already exists", field="name")
    try:
        engine_seed = engine_seeds.load_csv_seed(
            content, target=target, task_type=task_type or None, metric=metric or None, name=name
        )
    except engine_seeds.SeedError as error:
        raise ServiceError(str(error), field=getattr(error, "field", "file")) from None
    seeds_dir = Path(settings.DATA_DIR) / "seeds"
    seeds_dir.mkdir(parents=True, exist_ok=True)
    csv_path = seeds_dir / f"{name}.csv"
    # Written under a temporary name and renamed last, inside the transaction: a failure anywhere (DNA, disk, the
    # database) leaves neither a Seed row nor a file behind.
    partial_path = seeds_dir / f".{name}.csv.partial"
    try:
        with transaction.atomic():
            seed = _seed_store(engine_seed=engine_seed, source=Seed.Source.UPLOAD, csv_path=str(csv_path), user=user)
            partial_path.write_bytes(content)
            partial_path.replace(csv_path)
    finally:
        partial_path.unlink(missing_ok=True)
    return seed


def seed_engine_object(*, seed: Seed):
    """The engine's seed for a stored row (bundled ones are re-read from the package that ships them)."""
    if seed.source == Seed.Source.BUNDLED:
        return engine_seeds.load_bundled_seed(seed.name)
    return engine_seeds.load_csv_seed(
        Path(seed.csv_path).read_bytes(), target=seed.target, task_type=seed.task_type, metric=seed.metric, name=seed.name
    )
