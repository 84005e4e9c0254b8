"""The stages wired together: a TaskSpec alone determines its bundle byte for byte; `synthesize` makes validated tasks."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from sandmle.seeds.dna import TaskDNA, extract_dna
from sandmle.synth import calibrate, levels, noise, plausibility, rules, targets
from sandmle.synth.domains import DomainChoice, mutate_domain
from sandmle.synth.generate import sample_features
from sandmle.synth.llm_stages import llm_stages
from sandmle.synth.texts import describe_text_column
from sandmle.tasks.bundle import STAGING_PREFIX, bundle_hash, file_hashes, publish_bundle, write_csv, write_json
from sandmle.tasks.grading_checks import check_grading
from sandmle.tasks.metrics import get_metric

GENERATOR_VERSION = "sandmle-synth/4"  # 4: outliers vary; 3: values on declared ranges, neutral ids, hashed stage seeds
FIXED_OUTLIER_VERSIONS = frozenset({"sandmle-synth/3"})  # their bundles rebuild with one outlier value per column
MAX_TRAIN = 200  # training rows are 50-200; a task the skilled reference cannot learn is retried at the most
PUBLIC_SHARE = 0.3  # of test rows scored for feedback during an episode; the rest make the final grade


@dataclass
class TaskSpec:
    seed_name: str
    dna: dict
    domain: dict
    rule: dict
    noise: dict
    n_train: int
    n_test: int
    rng_seed: int
    metric: str
    generator_version: str = GENERATOR_VERSION
    # A successor's level and the knobs it set (sandmle.synth.levels); None for level 0, and then left out of the
    # dict, so tasks made before levels keep their ids and bytes.
    difficulty: dict | None = None

    def to_dict(self) -> dict:
        data = asdict(self)
        if data["difficulty"] is None:
            del data["difficulty"]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "TaskSpec":
        return cls(**data)

    @property
    def task_id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:10]
        # The domain and a digest of the whole spec (seed included, so ids stay unique), never the seed's name: the
        # id is the competition id an agent is shown (SandMLE's ReAct prompt) and an exported archive's folder name.
        return f"{self.domain['domain_id']}-{digest}".replace("_", "-")


@dataclass
class SynthesisResult:
    task_id: str
    status: str  # validated | rejected
    spec: TaskSpec
    bundle_dir: Path
    rule_family: str
    domain_id: str
    milestones: dict
    ladder: dict
    reasons: list[str] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)
    bundle_sha256: str = ""
    headroom: float | None = None  # (best learned reference - baseline) / (oracle - baseline)
    attempts: list[dict] = field(default_factory=list)  # every spec tried for this task: family, n_train, reasons

    def summary(self) -> dict:
        return {"id": self.task_id, "status": self.status, "rule_family": self.rule_family, "domain": self.domain_id,
                "milestones": self.milestones, "headroom": self.headroom, "reasons": self.reasons}


def _families(dna: TaskDNA) -> tuple[str, ...]:
    if dna.modality == "image":
        return rules.IMAGE_FAMILIES
    if dna.modality == "text":
        return rules.TEXT_REGRESSION_FAMILIES if dna.task_type == "regression" else rules.TEXT_FAMILIES
    return rules.REGRESSION_FAMILIES if dna.task_type == "regression" else rules.CLASSIFICATION_FAMILIES


def _materialize(spec: TaskSpec, log: list | None = None):
    """Rebuild the clean features, clean and noisy labels of a spec, deterministically."""
    dna = TaskDNA.from_dict(spec.dna)
    choice = DomainChoice(**spec.domain)
    rng = np.random.default_rng([spec.rng_seed, 1])
    clean = sample_features(dna, choice, n_rows=spec.n_train + spec.n_test, rng=rng, family=spec.rule["family"])
    clean_labels = rules.apply_rule(spec.rule, clean)
    noisy = noise.inject_noise(clean, clean_labels, recipe=spec.noise, task_type=dna.task_type,
                               n_classes=max(len(choice.label_names), 2), n_train=spec.n_train,
                               rng=np.random.default_rng([spec.rng_seed, 4]), units=_units(spec),
                               vary_outliers=spec.generator_version not in FIXED_OUTLIER_VERSIONS)
    if log is not None:
        log.extend({"stage": "noise", "message": note} for note in noisy.notes)
    return dna, choice, clean, clean_labels, noisy.features, noisy.labels


def stage_seed(rng: int, index: int, attempt: int) -> int:
    """The rng seed of one try at one task of a run: a hash of (rng, index, attempt) in [0, 2**32), so any rng a
    user gives works (arithmetic on it overflowed the 32-bit seeds of scikit-learn) and tries never collide."""
    return int.from_bytes(hashlib.sha256(f"{rng}:{index}:{attempt}".encode()).digest()[:4], "big")


def _named_columns(spec: TaskSpec) -> list[dict]:
    """Every named column of a spec, distractors included, with what the domain declares of it."""
    return spec.domain.get("features", []) + spec.noise.get("distractor_columns", [])


def _units(spec: TaskSpec) -> dict[str, str]:
    """The unit of every named column, distractors included."""
    return {column["name"]: column["unit"] for column in _named_columns(spec)}


ID_PREFIX = "r"  # ids say nothing of the seed or the label: a fixed letter and a number in shuffled order


def _row_ids(spec: TaskSpec, n_rows: int) -> list[str]:
    width = max(5, len(str(n_rows - 1)))
    return [f"{ID_PREFIX}{i:0{width}d}" for i in np.random.default_rng([spec.rng_seed, 2]).permutation(n_rows)]


def _submission_columns(choice: DomainChoice, metric: str, task_type: str) -> list[str]:
    if get_metric(metric).prediction == "probability" and task_type == "multiclass":
        return ["id", *choice.label_names]
    return ["id", choice.target_name]


def build_bundle(spec: TaskSpec, out_dir: Path, log: list | None = None) -> Path:
    """Write the bundle of `spec` to out_dir/<task_id>/; returns that directory. The noise stage logs into `log`."""
    dna, choice, clean, clean_labels, noisy, labels = _materialize(spec, log)
    task_dir = Path(out_dir) / spec.task_id
    if task_dir.exists():
        shutil.rmtree(task_dir)
    (task_dir / "public").mkdir(parents=True)
    n = len(noisy)
    ids = _row_ids(spec, n)
    classification = dna.task_type != "regression"
    target = choice.target_name
    target_values = [choice.label_names[int(k)] for k in labels] if classification else np.round(labels, 4)
    if dna.modality == "image":
        side = int(np.sqrt(noisy.shape[1]))
        top = float(noisy.to_numpy().max() or 1.0)
        (task_dir / "public" / "images").mkdir()
        for identifier, row in zip(ids, noisy.to_numpy()):
            pixels = np.clip(row.reshape(side, side) / top * 255, 0, 255).astype(np.uint8)
            Image.fromarray(pixels, mode="L").save(task_dir / "public" / "images" / f"{identifier}.png", optimize=False)
        public = pd.DataFrame({"id": ids, "image": [f"images/{i}.png" for i in ids]})
    else:
        public = pd.concat([pd.DataFrame({"id": ids}), noisy.reset_index(drop=True)], axis=1)
    train = public.iloc[: spec.n_train].assign(**{target: list(target_values[: spec.n_train])})
    test = public.iloc[spec.n_train:].reset_index(drop=True)
    write_csv(train, task_dir / "public" / "train.csv")
    write_csv(test, task_dir / "public" / "test.csv")
    split_rng = np.random.default_rng([spec.rng_seed, 3])
    leaderboard = np.where(split_rng.uniform(size=spec.n_test) < PUBLIC_SHARE, "public", "private")
    answers = pd.DataFrame({"id": test["id"], target: list(target_values[spec.n_train:]), "leaderboard": leaderboard})
    write_csv(answers, task_dir / "private" / "answers.csv")
    columns = _submission_columns(choice, spec.metric, dna.task_type)
    sample = pd.DataFrame({"id": test["id"]})
    metric = get_metric(spec.metric)
    for column in columns[1:]:
        if metric.prediction == "probability":
            sample[column] = 1.0 / max(len(columns) - 1, 2) if len(columns) > 2 else 0.5
        elif classification:
            sample[column] = choice.label_names[0]
        else:
            sample[column] = 0.0
    write_csv(sample, task_dir / "public" / "sample_submission.csv")
    declared = {column["name"]: column for column in _named_columns(spec)}
    described = [_described_column(c, declared.get(c, {}), noisy[c]) for c in noisy.columns if not c.startswith("px_")]
    (task_dir / "public" / "description.md").write_text(_description(choice, spec, dna, described, columns), encoding="utf-8")
    write_json(spec.rule | {"description": rules.describe_rule(spec.rule, label_names=choice.label_names or [""])},
               task_dir / "private" / "rule.json")
    return task_dir


def _described_column(name: str, declared: dict, values: pd.Series) -> dict:
    """A row of the description's column table: the unit, and the typical range or levels a reader should expect."""
    unit = declared.get("unit", "")
    if unit == "text":
        return {"name": name, "unit": describe_text_column(values), "typical": ""}
    if "typical" in declared:
        low, high = declared["typical"]
        typical = f"{_number(low)} to {_number(high)}" + (", whole" if declared["whole"] else "")
    else:
        typical = ", ".join(f"`{level}`" for level in declared.get("levels", [])[:8])
    return {"name": name, "unit": unit, "typical": typical}


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:,.0f}"


def _description(choice: DomainChoice, spec: TaskSpec, dna: TaskDNA, described: list[dict], columns: list[str]) -> str:
    metric = get_metric(spec.metric)
    direction = "lower is better" if metric.is_lower_better else "higher is better"
    what = (f"predict `{choice.target_name}` ({choice.target_unit})" if dna.task_type == "regression"
            else f"predict `{choice.target_name}`, one of: {', '.join(f'`{n}`' for n in choice.label_names)}")
    rows = ("\n".join(f"| `{f['name']}` | {f['unit']} | {f['typical']} |" for f in described)
            or "| `image` | an 8-bit greyscale PNG under `images/` | |")
    glitches = noise.glitch_share(spec.noise)
    mess = ("Like real data, some values are missing" + (
        f", and up to {glitches:.0%} of a column's readings are implausible (unit slips, sensor glitches)."
        if glitches >= 0.005 else "."))
    submission = {"label": f"the predicted `{choice.target_name}` label", "value": f"the predicted `{choice.target_name}`",
                  "probability": "the predicted probability of each class" if len(columns) > 2
                  else f"the predicted probability that `{choice.target_name}` is `{(choice.label_names or ['', ''])[-1]}`"}[metric.prediction]
    return (f"# {choice.title}\n\n## Overview\n\n{choice.context} Each row is one {choice.entity}; {what}.\n\n"
            f"## Data\n\n- `train.csv`: {spec.n_train} rows with the target.\n- `test.csv`: {spec.n_test} rows without it.\n"
            f"- `sample_submission.csv`: the submission format.\n" + ("- `images/`: one PNG per row.\n" if dna.modality == "image" else "")
            + f"\n| column | unit | typical values |\n| --- | --- | --- |\n"
            f"| `id` | row identifier: `{ID_PREFIX}` and a number, in no particular order | |\n{rows}\n\n"
            f"{mess}\n\n"
            f"## Evaluation\n\nSubmissions are scored with **{metric.name}** ({direction}).\n\n"
            f"## Submission format\n\nA CSV with header `{','.join(columns)}`: one row per test `id`, with {submission}.\n")


def _calibrate(spec: TaskSpec, task_dir: Path) -> tuple[dict, dict, list[str]]:
    dna, choice, clean, clean_labels, noisy, labels = _materialize(spec)
    classification = dna.task_type != "regression"
    answers = pd.read_csv(task_dir / "private" / "answers.csv")
    private = (answers["leaderboard"] == "private").to_numpy()
    x_train, x_test = noisy.iloc[: spec.n_train], noisy.iloc[spec.n_train:][private]
    y_train, y_test = labels[: spec.n_train], labels[spec.n_train:][private]
    label_ids = list(range(len(choice.label_names))) if classification else None
    metric = get_metric(spec.metric)
    oracle = rules.apply_rule(spec.rule, clean.iloc[spec.n_train:]).astype(float if not classification else int)[private]
    if metric.prediction == "probability":
        eps = spec.noise["label_noise"]
        k = len(label_ids)
        onehot = np.full((len(oracle), k), eps / k)
        onehot[np.arange(len(oracle)), oracle] += 1 - eps
        oracle = onehot[:, 1] if k == 2 else onehot
    if classification and len(np.unique(y_train)) < len(label_ids):
        return {}, {}, ["a class is missing from the training rows"]
    ladder = calibrate.ladder_scores(x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test,
                                     oracle_prediction=oracle, metric=spec.metric, task_type=dna.task_type,
                                     labels=label_ids, rng_seed=spec.rng_seed, family=spec.rule["family"])
    milestones = calibrate.milestone_thresholds(ladder, is_lower_better=metric.is_lower_better,
                                                shift=levels.milestone_shift(spec.difficulty))
    public = pd.concat([pd.DataFrame({"id": _row_ids(spec, len(noisy))}), noisy.reset_index(drop=True)], axis=1)
    public_test = public.iloc[spec.n_train:][private]
    leaks = calibrate.single_column_scores(public.iloc[: spec.n_train], public_test, y_train, y_test,
                                           metric=spec.metric, task_type=dna.task_type, labels=label_ids)
    shift = calibrate.shift_pvalues(noisy.iloc[: spec.n_train], noisy.iloc[spec.n_train:])
    implausible = plausibility.implausible_shares(noisy, plausibility.declared_readings(_named_columns(spec)))
    reasons = calibrate.critic(ladder=ladder, milestones=milestones, is_lower_better=metric.is_lower_better,
                               leak_scores=leaks, shift_pvalues=shift, implausible=implausible,
                               allowed_implausible=plausibility.allowed_share(noise.glitch_share(spec.noise), len(noisy)))
    return ladder, milestones, reasons


def _finish_bundle(spec: TaskSpec, task_dir: Path, ladder: dict, milestones: dict, choice: DomainChoice, dna: TaskDNA) -> str:
    metric = get_metric(spec.metric)
    classification = dna.task_type != "regression"
    _, sources = calibrate.milestone_plan(ladder, is_lower_better=metric.is_lower_better,
                                          shift=levels.milestone_shift(spec.difficulty))
    headroom = calibrate.headroom(ladder, is_lower_better=metric.is_lower_better)
    grading = {"metric": spec.metric, "is_lower_better": metric.is_lower_better, "task_type": dna.task_type,
               "id_column": "id", "target_column": choice.target_name,
               "labels": choice.label_names if classification else None,
               "submission_columns": _submission_columns(choice, spec.metric, dna.task_type),
               "milestones": milestones, "milestone_sources": sources, "headroom": headroom, "ladder": ladder}
    check_grading(grading)  # the same check every import and every grade applies
    write_json(grading, task_dir / "private" / "grading.json")
    hashes = file_hashes(task_dir)
    digest = bundle_hash(hashes)
    write_json({"task_id": spec.task_id, "generator_version": GENERATOR_VERSION, "spec": spec.to_dict(),
                "headroom": headroom, "bundle_sha256": digest, "files": hashes}, task_dir / "task.json")
    return digest


def make_spec(dna: TaskDNA, *, seed_name: str, seed_names: set[str], rng_seed: int, log: list, n_train: int | None = None,
              n_test: int = 400, families: tuple[str, ...] | None = None, domain_stage=None, rule_stage=None,
              noise_scale: float = 1.0) -> TaskSpec:
    """Decide a task: domain, hidden rule (of one of `families`, default all that fit the DNA), noise recipe (its
    intensities times noise_scale), sizes.

    domain_stage and rule_stage replace the procedural domain mutation and rule design (see llm_stages)."""
    rng = np.random.default_rng([rng_seed, 0])
    choice = (domain_stage or mutate_domain)(dna, rng=rng, seed_names=seed_names, log=log)
    preview = sample_features(dna, choice, n_rows=400, rng=np.random.default_rng([rng_seed, 9]))
    candidates = tuple(families) if families else _families(dna)
    usable = rules.usable_families(candidates, preview)
    if not usable:
        raise ValueError(f"no rule family among {', '.join(candidates)} fits this seed's features")
    family = usable[int(rng.integers(len(usable)))]
    if dna.modality == "image":  # pictures plant the pattern of the chosen family, so it is designed on its own
        preview = sample_features(dna, choice, n_rows=400, rng=np.random.default_rng([rng_seed, 9]), family=family)
    n_train = n_train or int(rng.integers(50, 201))
    if rule_stage is None:
        rule = rules.design_rule(family, preview, n_classes=max(len(choice.label_names), 2), rng=rng)
    else:
        rule = rule_stage(family, preview, n_classes=max(len(choice.label_names), 2), rng=rng, log=log)
    if "n_classes" in rule:
        choice.label_names = choice.label_names[: rule["n_classes"]]
    log.append({"stage": "rule", "message": f"{rule['family']} over {', '.join(rule['features'])}"})
    recipe = noise.design_recipe(dna, choice, rng=rng, seed_names=seed_names, scale=noise_scale)
    log.append({"stage": "noise", "message": "recipe: " + noise.describe_recipe(recipe)})
    return TaskSpec(seed_name=seed_name, dna=dna.to_dict() | {}, domain=choice.to_dict(), rule=rule, noise=recipe,
                    n_train=n_train, n_test=n_test, rng_seed=rng_seed, metric=dna.metric)


def _spec_dna(spec_dna: dict) -> dict:
    return {key: value for key, value in spec_dna.items() if key != "feature_kinds"}


def synthesize(seed, *, count: int, rng: int, out_dir: Path, llm=None, progress=None, attempts: int = 4,
               families: tuple[str, ...] | None = None, start: int = 0, on_result=None,
               n_train: int | None = None, noise_scale: float = 1.0, min_headroom: float | None = None,
               difficulty: str | None = None) -> list[SynthesisResult]:
    """Make `count` tasks from a seed; each retries with a new rng up to `attempts` times to pass the critic.

    families restricts the hidden-rule families drawn from (default: every family that fits the seed); n_train fixes
    the training rows (default: drawn per task, 50-MAX_TRAIN); noise_scale multiplies the noise intensities (0: clean
    tasks, up to noise.NOISE_SCALE_MAX). min_headroom and difficulty are targets (sandmle.synth.targets): a task that
    passes the critic but misses them is retried like one the critic rejects, and kept rejected, with the target named
    in its reasons, when no try meets them. Task `index`
    depends only on the seed, rng and index, so a run resumed with `start` (the tasks already kept) makes the rest
    and nothing twice; on_result(index, result) is called as each task is done, so a caller can store it at once.
    Each bundle is built under a staging folder in out_dir and renamed into place only when complete: a worker
    killed, or a disk that fills, midway leaves no half bundle under a task's name."""
    targets.check_targets(min_headroom=min_headroom, difficulty=difficulty)
    if not 0 <= noise_scale <= noise.NOISE_SCALE_MAX:
        raise ValueError(f"noise_scale {noise_scale} is outside 0 to {noise.NOISE_SCALE_MAX}")
    dna = extract_dna(seed)
    seed_names = {str(c) for c in seed.frame.columns} | {str(v) for v in seed.frame[seed.target].unique()[:50]}
    domain_stage, rule_stage = llm_stages(llm)  # both None without an LLM: the procedural stages
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _remove_dead_staging(out_dir)
    results = []
    for index in range(start, count):
        tried: list[dict] = []
        staging = out_dir / f"{STAGING_PREFIX}{os.getpid()}-{index}"
        try:
            for attempt in range(attempts):
                log: list[dict] = [{"stage": "dna", "message": f"{dna.modality} {dna.task_type}, {dna.n_rows} rows"}]
                spec = make_spec(dna, seed_name=seed.name, seed_names=seed_names,
                                 rng_seed=stage_seed(rng, index, attempt), log=log, families=families,
                                 domain_stage=domain_stage, rule_stage=rule_stage, n_train=n_train,
                                 noise_scale=noise_scale)
                spec.dna = _spec_dna(spec.dna)
                spec, built_dir, ladder, milestones, reasons = _build_and_calibrate(spec, staging, log)
                lower = get_metric(spec.metric).is_lower_better
                recovered = calibrate.headroom(ladder, is_lower_better=lower) if ladder else None
                if not reasons:  # the critic passed it: it must also meet the curator's targets
                    reasons = targets.target_reasons(recovered, min_headroom=min_headroom, difficulty=difficulty)
                tried.append({"family": spec.rule["family"], "n_train": spec.n_train, "reasons": reasons})
                log.append({"stage": "validate", "message": "; ".join(reasons) or "passed"})
                if reasons and attempt < attempts - 1:
                    shutil.rmtree(built_dir)
                    continue
                choice = DomainChoice(**spec.domain)
                digest = _finish_bundle(spec, built_dir, ladder, milestones, choice,
                                        TaskDNA.from_dict(spec.dna)) if ladder else ""
                task_dir = publish_bundle(built_dir, out_dir / spec.task_id)
                result = SynthesisResult(spec.task_id, "rejected" if reasons else "validated", spec, task_dir,
                                         spec.rule["family"], choice.domain_id, milestones, ladder, reasons, log,
                                         digest, recovered, tried)
                results.append(result)
                break
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if on_result is not None:
            on_result(index, result)
        if progress is not None:
            progress(index + 1, count)
    return results


def _remove_dead_staging(out_dir: Path) -> None:
    """Remove half-built bundles left by a killed process (its pid, in the folder's name, is gone)."""
    for leftover in out_dir.glob(STAGING_PREFIX + "*"):
        owner = leftover.name[len(STAGING_PREFIX):].split("-", 1)[0]
        if owner.isdigit() and _process_alive(int(owner)):
            continue
        shutil.rmtree(leftover, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _build_and_calibrate(spec: TaskSpec, out_dir: Path, log: list) -> tuple:
    """Build and calibrate `spec`; when only the headroom check fails below the largest training size, rebuild once
    at MAX_TRAIN rows (more rows may carry the rule) and keep that spec if it passes. Says in the log which it did."""
    task_dir = build_bundle(spec, out_dir, log=log)
    ladder, milestones, reasons = _calibrate(spec, task_dir)
    if not reasons or spec.n_train >= MAX_TRAIN or not all(r.startswith("low headroom") for r in reasons):
        return spec, task_dir, ladder, milestones, reasons
    larger = dataclasses.replace(spec, n_train=MAX_TRAIN)
    larger_dir = build_bundle(larger, out_dir)
    larger_ladder, larger_milestones, larger_reasons = _calibrate(larger, larger_dir)
    if larger_reasons:
        shutil.rmtree(larger_dir)
        log.append({"stage": "validate", "message": f"low headroom at {spec.n_train} training rows; {MAX_TRAIN} rows did "
                    f"not help ({'; '.join(larger_reasons)}), so the task keeps {spec.n_train}"})
        return spec, task_dir, ladder, milestones, reasons
    shutil.rmtree(task_dir)
    log.append({"stage": "validate", "message": f"low headroom at {spec.n_train} training rows; rebuilt with "
                f"{MAX_TRAIN}, where the skilled reference recovers enough"})
    return larger, larger_dir, larger_ladder, larger_milestones, larger_reasons


def verify_bundle(task_dir: Path) -> bool:
    """Rebuild the bundle from its task.json spec in a scratch dir and compare hashes with the recorded one."""
    import tempfile

    task = json.loads((Path(task_dir) / "task.json").read_text())
    if bundle_hash(file_hashes(Path(task_dir))) != task["bundle_sha256"]:
        return False
    spec = TaskSpec.from_dict(task["spec"])
    with tempfile.TemporaryDirectory() as scratch:
        rebuilt = build_bundle(spec, Path(scratch))
        ladder, milestones, _ = _calibrate(spec, rebuilt)
        digest = _finish_bundle(spec, rebuilt, ladder, milestones, DomainChoice(**spec.domain), TaskDNA.from_dict(spec.dna))
    return digest == task["bundle_sha256"]
