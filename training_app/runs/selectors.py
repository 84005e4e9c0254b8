"""Reads of training runs: the resolved config as the studio shows it, and one step's trajectories as groups with
each sample's reward and GRPO advantage."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from django.http import Http404

from sandmle.tasks.grade_report import stored_grade
from sandmle_web.llm_hosts import shown_endpoint
from training_app.models import TrainingRun

# What TRL adds to a group's std before dividing (GRPOTrainer, scale_rewards="group"), so a flat group gives 0.
ADVANTAGE_EPS = 1e-4


def run_reply_menu(run: TrainingRun) -> list[str] | None:
    """The replies the run's model chooses among, when its config.json carries a reply menu (the demo's model)."""
    from sandmle.agents.policies.menu import MENU_CONFIG_KEY

    try:
        menu = json.loads((Path(run.config.get("model") or "") / "config.json").read_text()).get(MENU_CONFIG_KEY)
    except (OSError, ValueError, AttributeError):
        return None
    return menu if isinstance(menu, list) and menu else None


def step_trajectory_path(run: TrainingRun, step: int) -> Path:
    """The step's JSONL as the trainer wrote it; only a file inside the run's output_dir, else 404."""
    row = run.metrics.filter(step=step).first()
    path = Path((row.metrics.get("trajectories") or "") if row else "")
    root = Path(run.output_dir).resolve()
    if not row or not path.name or not path.resolve().is_relative_to(root) or not path.is_file():
        raise Http404("no trajectories file for this step")
    return path


def step_records(path: Path) -> list[dict]:
    """The step file's episode records in order (a line that is not a JSON object is skipped)."""
    records = []
    with path.open() as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _components(record: dict, scheme: str) -> dict[str, float]:
    entry = (record.get("rewards") or {}).get(scheme)
    parts = entry.get("components") if isinstance(entry, dict) else None
    return {str(name): value for name, value in parts.items() if isinstance(value, (int, float))} \
        if isinstance(parts, dict) else {}


def _total(record: dict, scheme: str):
    entry = (record.get("rewards") or {}).get(scheme)
    return entry.get("total") if isinstance(entry, dict) else None


def _grade_score(record: dict) -> float | None:
    grade = stored_grade(record.get("grade"))
    return grade.score if grade is not None else None


def step_groups(path: Path, *, scheme: str, group_size: int, masked_in_baseline: str = "reference",
                mask_step_timeout_share: float = 0.2) -> list[dict]:
    """The step's episodes in their GRPO groups (by group_id, else runs of group_size), each sample with the reward
    the trainer used for its group's statistics (the engine's rule: sandmle.rl.rollouts.baseline_reward) and, when it
    trained, its advantage: (reward - group mean) / (group std + eps), as TRL computes it.

    Records are agent output: only plain fields are read, and the page escapes every string.
    """
    records = step_records(path)
    groups: dict[str, list[tuple[int, dict]]] = {}
    for index, record in enumerate(records):
        key = str(record.get("group_id") or f"chunk-{index // max(group_size, 1)}")
        groups.setdefault(key, []).append((index, record))
    from sandmle.rl.rollouts import baseline_reward

    result = []
    for number, (group_id, numbered) in enumerate(groups.items(), start=1):
        members = [record for _, record in numbered]
        judged = [baseline_reward(record, reward_scheme=scheme, masked_in_baseline=masked_in_baseline,
                                  mask_step_timeout_share=mask_step_timeout_share) for record in members]
        rewards = [reward for reward, _ in judged]
        present = [reward for reward in rewards if reward is not None]
        mean = statistics.fmean(present) if present else None
        std = statistics.stdev(present) if len(present) > 1 else 0.0
        samples = [{
            "index": record.get("sample_index", position),
            "line": numbered[position][0],
            "task_id": str(record.get("task_id", "")),
            "components": _components(record, scheme),
            "reward": reward,
            "masked": reason,
            "advantage": None if reward is None or reason else (reward - mean) / (std + ADVANTAGE_EPS),
            "dense": _total(record, "dense"), "sparse": _total(record, "sparse"),
            "termination": str(record.get("termination", "")),
            "turns": sum(1 for turn in record.get("turns") or [] if isinstance(turn, dict)
                         and turn.get("role") == "assistant"),
            "score": _grade_score(record),
        } for position, (record, (reward, reason)) in enumerate(zip(members, judged))]
        result.append({"number": number, "group_id": group_id, "task_id": samples[0]["task_id"] if samples else "",
                       "mean": mean, "std": std, "flat": len(present) < 2 or max(present) - min(present) <= 1e-9,
                       "samples": samples})
    return result


HOST_PATH_KEYS = ("output_dir", "dataset")  # where the trainer writes: a folder of this machine, nothing to a reader
# The environment variable whose value the judge is sent: which secrets the worker holds is the admin's to know.
KEY_VARIABLE_KEYS = ("judge_key_env",)
# The endpoints stay readable: a run's judge is part of its recipe (its rewards depend on it), and they are hosts the
# admin allows, as visible as the `openai:` policies viewers read on every rollout and campaign. Shown without any
# credentials or query a row written before the checks might hold (sandmle_web.llm_hosts.shown_endpoint).
ENDPOINT_KEYS = ("judge_url", "vllm_server_url")


def training_run_shown_config(run: TrainingRun, *, show_host_paths: bool = False) -> dict:
    """The trainer's resolved config with its task bundles named by task id, not by their server folders.

    A bundle's folder holds private/ (answers, hidden rule); viewers read this config, so it lists ids only. The stored
    config keeps the paths: the worker trains from them. Output folders, a model given as a path of this machine and
    the judge's key variable are shown only where `show_host_paths` (admins): others see the model's folder name.
    """
    config = dict(run.config or {})
    ids = {str(Path(task.bundle_dir)): task.task_id for task in run.task_set.tasks.all()} if run.task_set_id else {}
    for key in ("tasks", "eval_tasks"):
        if isinstance(config.get(key), list):
            config[key] = [ids.get(str(path), Path(str(path)).name) for path in config[key]]
    if show_host_paths:
        return config
    for key in HOST_PATH_KEYS + KEY_VARIABLE_KEYS:
        config.pop(key, None)
    for key in ENDPOINT_KEYS:
        if isinstance(config.get(key), str):
            config[key] = shown_endpoint(config[key])
    model = config.get("model")
    if isinstance(model, str) and model.startswith("/"):
        config["model"] = Path(model).name
    return config


def training_run_recipe(run: TrainingRun) -> dict:
    """What the run trained with, as its page and the API show it: scaffold, options and feedback (with the "saw test
    scores" label of score_answers), and what its preset set and what the user changed."""
    from sandmle.rl.presets import preset_report
    from training_app.shared.presentation import saw_test_scores

    config = dict(run.config or {})
    return {"scaffold": config.get("scaffold"), "scaffold_options": config.get("scaffold_options") or {},
            "feedback": config.get("feedback"), "saw_test_scores": saw_test_scores(config),
            **preset_report(config)}


def checkpoints_with_provenance(run: TrainingRun) -> list:
    """The run's checkpoints, each with what its folder says it was trained with (None where the folder is gone or
    predates the record)."""
    from sandmle.rl.provenance import read_provenance
    from training_app.shared.presentation import saw_test_scores

    rows = list(run.checkpoints.all())
    for row in rows:
        row.provenance = read_provenance(row.path)
        row.saw_test_scores = saw_test_scores(row.provenance) or saw_test_scores(run.config)
    return rows
