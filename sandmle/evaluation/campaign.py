"""Evaluation campaigns: policies x scaffolds x tasks x seeds through the one episode runner, resumable from episodes.jsonl."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from sandmle.agents.policies.schedule import sampling_schedule
from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.agents.scaffolds.base import EVALUATION_FEEDBACK
from sandmle.episodes.budget import BUDGET_DEFAULTS, BUDGETS, episode_budget_kwargs
from sandmle.errors import UsageError

EPISODES_FILE = "episodes.jsonl"
REPORT_JSON = "report.json"
REPORT_CSV = "report.csv"


@dataclass
class CampaignSpec:
    """What a campaign runs: every policy under every scaffold on every task, `seeds` times (MLE-bench asks for 3)."""

    policies: list[str]
    scaffolds: list[str]
    tasks: list[Path]
    seeds: int = 3
    baseline: str | None = None
    feedback: str = "score"
    # The episode budgets (sandmle/episodes/budget.py), under their keys there.
    max_turns: int = BUDGET_DEFAULTS["max_turns"]
    time_budget_s: float = BUDGET_DEFAULTS["time_budget_s"]
    temperature: float = BUDGET_DEFAULTS["temperature"]
    step_timeout_s: float = BUDGET_DEFAULTS["step_timeout_s"]
    max_tokens: int = BUDGET_DEFAULTS["max_tokens"]
    context_tokens: int = BUDGET_DEFAULTS["context_tokens"]
    # {scaffold: {option: value}}: presets and options per column (sandmle.agents.scaffolds.options).
    scaffold_options: dict = field(default_factory=dict)
    # The sampling schedule's keys (sandmle/agents/policies/schedule.py); {} samples at `temperature` throughout.
    schedule: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def validate(self) -> None:
        """Raise UsageError("<field>: <problem>") for the first field that cannot run."""
        if not self.policies or not all(isinstance(p, str) and p.strip() for p in self.policies):
            raise UsageError("policies: give at least one policy spec (baseline, openai:MODEL@URL or hf:PATH)")
        if len(set(self.policies)) != len(self.policies):
            raise UsageError("policies: a policy is listed twice")
        unknown = [name for name in self.scaffolds if name not in SCAFFOLDS]
        if not self.scaffolds or unknown:
            raise UsageError(f"scaffolds: expected one or more of {', '.join(SCAFFOLDS)}"
                             + (f", not {', '.join(map(repr, unknown))}" if unknown else ""))
        if len(set(self.scaffolds)) != len(self.scaffolds):
            raise UsageError("scaffolds: a scaffold is listed twice")
        if not self.tasks:
            raise UsageError("tasks: give at least one task bundle")
        task_ids = []
        for task in self.tasks:
            task = Path(task)
            if not (task / "public").is_dir() or not (task / "private" / "grading.json").is_file():
                raise UsageError(f"tasks: {task.name or task} is not a task bundle (needs public/ and private/grading.json)")
            task_ids.append(task_id_of(task))
        if len(set(task_ids)) != len(task_ids):
            raise UsageError("tasks: two bundles have the same task id")
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, int) or self.seeds < 1:
            raise UsageError(f"seeds: {self.seeds!r} must be a whole number of at least 1")
        if self.baseline is not None and self.baseline not in self.policies:
            raise UsageError(f"baseline: {self.baseline!r} is not one of the policies")
        if self.feedback not in EVALUATION_FEEDBACK:
            raise UsageError(f"feedback: expected one of {', '.join(EVALUATION_FEEDBACK)}, not {self.feedback!r}")
        for name in (entry.key for entry in BUDGETS if entry.type == "int"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{name}: {value!r} must be a whole number of at least 1")
        for name in ("time_budget_s", "step_timeout_s"):
            if not float(getattr(self, name)) > 0:
                raise UsageError(f"{name}: must be more than 0 seconds")
        if not 0.0 <= float(self.temperature) <= 2.0:
            raise UsageError(f"temperature: {self.temperature} must be in [0, 2]")
        self.scaffold_options = check_campaign_scaffold_options(self.scaffold_options, self.scaffolds)
        from sandmle.agents.policies.schedule import checked_schedule

        self.schedule = checked_schedule(self.schedule)

    def to_dict(self) -> dict:
        return {**asdict(self), "tasks": [str(task) for task in self.tasks]}


def check_campaign_scaffold_options(options: object, scaffolds: list[str]) -> dict:
    """{scaffold: {option: value}} for scaffolds of the campaign, each option checked; UsageError names the key."""
    from sandmle.agents.scaffolds.options import check_scaffold_options

    if options in (None, {}):
        return {}
    if not isinstance(options, dict):
        raise UsageError("scaffold_options: expected a mapping of scaffold names to {option: value}")
    checked = {}
    for scaffold, given in options.items():
        if scaffold not in scaffolds:
            raise UsageError(f"scaffold_options: {scaffold!r} is not one of the campaign's scaffolds "
                             f"({', '.join(scaffolds)})")
        try:
            checked[scaffold] = check_scaffold_options(scaffold, given)
        except UsageError as error:
            raise UsageError(f"scaffold_options: {error}") from None
    return {name: value for name, value in checked.items() if value}


def task_id_of(task_dir: Path) -> str:
    """The bundle's task id as the episode runner names it: task.json's, else the directory's name."""
    try:
        return str(json.loads((Path(task_dir) / "task.json").read_text()).get("task_id", Path(task_dir).name))
    except (OSError, ValueError, AttributeError):
        return task_dir.name


def episode_key(policy: str, scaffold: str, task_id: str, seed: int) -> str:
    """The identity of one episode of a campaign; a resumed campaign skips every key already recorded."""
    return f"{policy}|{scaffold}|{task_id}|{int(seed)}"


def read_episodes(out_dir: Path) -> list[dict]:
    """The recorded episodes; a last line cut short by a crash is ignored (that episode runs again)."""
    path = Path(out_dir) / EPISODES_FILE
    if not path.is_file():
        return []
    records, seen = [], set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "key" in record and record["key"] not in seen:
            seen.add(record["key"])
            records.append(record)
    return records


def _write_reports(out_dir: Path, episodes: list[dict], spec: CampaignSpec, complete: bool,
                   generation: dict | None = None) -> dict:
    from sandmle.episodes.failures import tally_failures, trajectory_error
    from sandmle.evaluation.transfer import report_csv, transfer_report
    from sandmle.rewards.comparison import parts_by_cell, scheme_comparison

    report = transfer_report(episodes, baseline=spec.baseline if any(e["policy"] == spec.baseline for e in episodes)
                             else None)
    report["complete"] = complete
    report["episodes"] = len(episodes)
    report["failures"] = tally_failures(trajectory_error(e.get("trajectory") or {}) for e in episodes).to_dict()
    # Dense against sparse on the same episodes; one policy, scaffold and task over seeds is a group.
    report["reward_schemes"] = scheme_comparison(((e["policy"], e["scaffold"], e["task_id"]),
                                                  (e.get("trajectory") or {}).get("rewards") or {}) for e in episodes)
    # Which part of each scheme's reward every scaffold earned (format share or milestones).
    report["reward_parts"] = parts_by_cell(((e["policy"], e["scaffold"]), (e.get("trajectory") or {}).get("rewards")
                                            or {}) for e in episodes)
    if generation:
        report["generation"] = {policy: {**figures, "sandbox_s": round(_sandbox_s(episodes, policy), 4)}
                                for policy, figures in generation.items()}
    (out_dir / REPORT_JSON).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out_dir / REPORT_CSV).write_text(report_csv(report), encoding="utf-8")
    return report


def _sandbox_s(episodes: list[dict], policy: str) -> float:
    return sum(turn.get("wall_s") or 0.0 for episode in episodes if episode["policy"] == policy
               for turn in (episode.get("trajectory") or {}).get("turns", []) if turn.get("step") is not None)


def run_campaign(spec: CampaignSpec, out_dir: Path, *, on_episode: Callable[[dict], None] | None = None,
                 should_stop: Callable[[], bool] | None = None, concurrency: int = 1,
                 policy_options: dict | None = None, pool=None) -> dict:
    """Run every episode of the grid not yet in out_dir/episodes.jsonl, appending each as it ends; write the reports.

    Episodes go through episodes/runner.run_batch (one call per policy, scaffold and seed over the tasks still to
    run), so a campaign episode is the same code as a training one. A stop request ends the run between episodes; the report
    then covers what finished and says complete: false.
    """
    from sandmle.agents.policies import SamplingParams, make_policy
    from sandmle.episodes.runner import EpisodeConfig, _make_pool, run_batch
    from sandmle.generation import GenerationStats

    spec.validate()
    if concurrency < 1:
        raise UsageError("concurrency: must be at least 1")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "spec.json").write_text(json.dumps(spec.to_dict(), indent=2) + "\n", encoding="utf-8")
    episodes = read_episodes(out_dir)
    done = {episode["key"] for episode in episodes}
    tasks = [(Path(task), task_id_of(Path(task))) for task in spec.tasks]
    episode_budgets, sampling_budgets = episode_budget_kwargs(vars(spec))
    lock = threading.Lock()
    stopped = False
    own_pool = pool is None
    pool = _make_pool(concurrency) if own_pool else pool
    generation: dict[str, GenerationStats] = {}  # per policy: this run's calls (a resumed run counts its own)
    try:
        with (out_dir / EPISODES_FILE).open("a", encoding="utf-8") as sink:
            for policy_spec in spec.policies:
                pending_for_policy = [(scaffold, seed) for scaffold in spec.scaffolds for seed in range(spec.seeds)
                                      if any(episode_key(policy_spec, scaffold, tid, seed) not in done for _, tid in tasks)]
                if not pending_for_policy or stopped:
                    continue
                policy = make_policy(policy_spec, **(policy_options or {}))
                stats = generation.setdefault(policy_spec, GenerationStats())
                for scaffold, seed in pending_for_policy:
                    if should_stop is not None and should_stop():
                        stopped = True
                        break
                    pending = [(path, tid) for path, tid in tasks if episode_key(policy_spec, scaffold, tid, seed) not in done]
                    config = EpisodeConfig(feedback=spec.feedback, **episode_budgets, seed=seed,
                                           sampling=SamplingParams(**sampling_budgets,
                                                                   **sampling_schedule(spec.schedule)),
                                           scaffold_options=dict(spec.scaffold_options.get(scaffold, {})))

                    def record(trajectory, policy_spec=policy_spec, scaffold=scaffold, seed=seed) -> None:
                        data = trajectory.to_dict()
                        task_id = data["task_id"]  # the runner names it as task_id_of does, and ids are unique
                        # An episode never graded stores {} as its report, as campaign files always have.
                        report = trajectory.grade.to_dict() if trajectory.grade is not None else {}
                        entry = {"key": episode_key(policy_spec, scaffold, task_id, seed), "policy": policy_spec,
                                 "scaffold": scaffold, "task_id": task_id, "seed": seed,
                                 "report": report, "trajectory": data}
                        with lock:
                            sink.write(json.dumps(entry) + "\n")
                            sink.flush()
                            done.add(entry["key"])
                            episodes.append(entry)
                        if on_episode is not None:
                            on_episode(entry)

                    run_batch([path for path, _ in pending], scaffold=scaffold, policy_spec=policy, samples=1,
                              concurrency=concurrency, config=config, on_trajectory=record, should_cancel=should_stop,
                              pool=pool, stats=stats)
                if should_stop is not None and should_stop():
                    stopped = True
    finally:
        close = getattr(pool, "close", None) if own_pool else None
        if close:
            close()
    total = len(spec.policies) * len(spec.scaffolds) * len(tasks) * spec.seeds
    wanted = {episode_key(p, s, tid, seed) for p in spec.policies for s in spec.scaffolds for _, tid in tasks
              for seed in range(spec.seeds)}
    in_grid = [episode for episode in episodes if episode["key"] in wanted]
    return _write_reports(out_dir, in_grid, spec, complete=len(in_grid) == total,
                          generation={policy: stats.summary() for policy, stats in generation.items()})
