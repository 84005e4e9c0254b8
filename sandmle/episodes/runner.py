"""The one episode runner for training and evaluation, and a threaded batch runner over tasks x samples."""

from __future__ import annotations

import json
import logging
import re
import statistics
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sandmle.agents.policies import Policy, SamplingParams, make_policy
from sandmle.agents.scaffolds import get_scaffold
from sandmle.agents.scaffolds.base import FEEDBACK_MODES, EpisodeContext
from sandmle.agents.scaffolds.options import check_scaffold_options, resolve_scaffold_options
from sandmle.episodes.budget import BUDGET_DEFAULTS, episode_budget_kwargs
from sandmle.episodes.trajectory import Trajectory
from sandmle.errors import UsageError
from sandmle.sandbox.staging import owned_temp_dir, remove_staged

logger = logging.getLogger(__name__)
_ABSOLUTE_PATH = re.compile(r"(?<![\w<>.])/(?:[^\s'\"/]+/)+")


@dataclass
class EpisodeConfig:
    """Budgets and settings of one episode; the same object drives training and evaluation runs."""

    feedback: str = "none"
    # The episode budgets (sandmle/episodes/budget.py); max_tokens and temperature are the sampling's.
    max_turns: int = BUDGET_DEFAULTS["max_turns"]
    time_budget_s: float = BUDGET_DEFAULTS["time_budget_s"]
    step_timeout_s: float = BUDGET_DEFAULTS["step_timeout_s"]
    memory_mb: int = 2048
    context_tokens: int = BUDGET_DEFAULTS["context_tokens"]
    sampling: SamplingParams = field(default_factory=SamplingParams)
    seed: int = 0
    # The scaffold's options or preset (sandmle.agents.scaffolds.options); budgets they set replace the ones above.
    scaffold_options: dict[str, Any] = field(default_factory=dict)
    # A judge (sandmle.llm.client.ChatClient) adds the `rubric` and `dense+rubric` schemes to every trajectory's
    # rewards.
    rubric_judge: Any = None
    rubric_weight: float = 0.2

    def __post_init__(self) -> None:
        if self.feedback not in FEEDBACK_MODES:
            raise UsageError(f"feedback {self.feedback!r}: expected one of {', '.join(FEEDBACK_MODES)}")
        if not 0.0 <= self.rubric_weight <= 1.0:
            raise UsageError(f"rubric weight {self.rubric_weight}: expected a share in [0, 1]")


def token_records(turns: list[dict]) -> list[dict]:
    """Per policy turn: prompt ids, completion ids, a mask of 0 over the prompt and 1 over the completion (0 too where
    the policy forced a token, as a reply menu does), logprobs."""
    records = []
    for index, turn in enumerate(turns):
        if turn["role"] != "assistant" or turn.get("completion_ids") is None:
            continue
        prompt, completion = turn.get("prompt_ids") or [], turn["completion_ids"]
        records.append({
            "turn": index,
            "prompt_ids": prompt,
            "completion_ids": completion,
            "mask": [0] * len(prompt) + list(turn.get("completion_mask") or [1] * len(completion)),
            "logprobs": turn.get("logprobs"),
        })
    return records


def flatten_tokens(records: list[dict]) -> dict | None:
    """One sequence for the whole episode when every prompt extends the previous prompt + completion token for token.

    The tokens a later prompt adds (tool observations, chat markup) get mask 0. If any prompt does not start with the
    earlier tokens (the context was trimmed, or the template re-tokenised a reply differently) no sequence is made:
    a mask guessed from text would train on the wrong tokens.
    """
    if not records:
        return None
    ids = list(records[0]["prompt_ids"])
    mask = [0] * len(ids)
    logprobs: list[float | None] = [None] * len(ids)
    for position, record in enumerate(records):
        if position:
            prompt = record["prompt_ids"]
            if prompt[: len(ids)] != ids:
                return None
            added = prompt[len(ids):]
            ids += added
            mask += [0] * len(added)
            logprobs += [None] * len(added)
        ids += record["completion_ids"]
        mask += record["mask"][len(record["prompt_ids"]):]
        logprobs += list(record["logprobs"] or [None] * len(record["completion_ids"]))
    return {"ids": ids, "mask": mask, "logprobs": logprobs, "prompt_length": len(records[0]["prompt_ids"])}


def _task_id(task_dir: Path) -> str:
    """The bundle's task id; its directory name when task.json is missing or unreadable (the episode reports why)."""
    try:
        return str(json.loads((task_dir / "task.json").read_text()).get("task_id", task_dir.name))
    except (OSError, ValueError, AttributeError):
        return task_dir.name


def run_episode(
    task_dir: Path,
    *,
    scaffold: str,
    policy: Policy,
    config: EpisodeConfig,
    workdir: Path | None = None,
    pool: Any = None,
    sample_index: int = 0,
    group_id: str | None = None,
) -> Trajectory:
    """Runs one episode under the scaffold's resolved options (a preset's budgets override the config's).

    An exception in the scaffold or the policy ends the episode with termination "error" and a plain error, and the
    submission it chose so far is still graded and rewarded; an exception outside it (a broken bundle, the grader)
    gives reward 0.
    """
    task_dir = Path(task_dir)
    started = time.monotonic()
    trajectory = Trajectory(task_id=_task_id(task_dir), scaffold=scaffold, policy=getattr(policy, "name", "policy"),
                            sample_index=sample_index, group_id=group_id or f"{_task_id(task_dir)}", feedback=config.feedback)
    own_workdir = workdir is None
    workdir = owned_temp_dir("sandmle-episode-") if own_workdir else Path(workdir)  # swept if the worker is killed
    workdir.mkdir(parents=True, exist_ok=True)
    context = None
    try:
        from sandmle.sandbox import Limits, Sandbox

        run_scaffold = get_scaffold(scaffold)
        settings, budgets = resolve_scaffold_options(scaffold, config.scaffold_options)
        trajectory.extra["scaffold_options"] = {**settings, **budgets}
        sandbox = Sandbox(public_dir=task_dir / "public", workdir=workdir,
                          limits=Limits(timeout_s=budgets.get("step_timeout_s", config.step_timeout_s),
                                        memory_mb=config.memory_mb), pool=pool)
        sampling = SamplingParams(**{**config.sampling.to_dict(), "seed": config.seed + sample_index,
                                     **episode_budget_kwargs(budgets)[1]})
        context = EpisodeContext(task_dir=task_dir, sandbox=sandbox, policy=policy, sampling=sampling,
                                 feedback=config.feedback, max_turns=budgets.get("max_turns", config.max_turns),
                                 time_budget_s=budgets.get("time_budget_s", config.time_budget_s),
                                 context_tokens=budgets.get("context_tokens", config.context_tokens), options=settings)
        try:
            trajectory.termination = run_scaffold(context)
        except Exception as error:
            # The policy or the scaffold failed mid-episode: the submission chosen so far is still graded.
            trajectory.termination = "error"
            trajectory.error = plain_error(error, task_dir=task_dir, workdir=workdir)
            logger.warning("episode of %s stopped by an error, grading what it left: %s", trajectory.task_id,
                           trajectory.error)
        finally:
            close = getattr(sandbox, "close", None)
            if close:
                close()
        report = _grade(trajectory, task_dir, workdir)
        trajectory.extra["submission_choice"] = context.submission_choice
        _record_turns(trajectory, context)
        if config.feedback == "score_answers":
            report = last_valid_score(trajectory, report, context.score_reports)
        _reward_all(trajectory, report, judge=config.rubric_judge, rubric_weight=config.rubric_weight)
    except Exception as error:
        _fail(trajectory, error, context, task_dir=task_dir, workdir=workdir)
    finally:
        trajectory.wall_s = time.monotonic() - started
        if own_workdir:
            remove_staged(workdir)
    return trajectory


def plain_error(error: BaseException, *, task_dir: Path, workdir: Path) -> str:
    """The exception as one line without host paths (the bundle, the episode, any other), plus where it was raised."""
    message = f"{type(error).__name__}: {error}"
    for path, name in ((workdir, "<workdir>"), (task_dir, "<task>")):
        for form in {str(path), str(Path(path).resolve())}:
            message = message.replace(form, name)
    message = _ABSOLUTE_PATH.sub(".../", message)
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if "/sandmle/" in frame.filename]
    if frames:
        last = frames[-1]
        message += f" (in sandmle/{last.filename.rsplit('/sandmle/', 1)[1]}:{last.lineno}, {last.name})"
    return message[:2000]


def _fail(trajectory: Trajectory, error: BaseException, context: Any, *, task_dir: Path, workdir: Path) -> None:
    """A failed episode keeps its turns and gets reward 0 under every scheme. GRPO masks it from the loss; whether the 0
    still counts in its group's baseline is the run's `masked_in_baseline` (sandmle.rl.rollouts.baseline_reward)."""
    trajectory.termination = "error"
    earlier = trajectory.error  # the scaffold's own error, when grading what it left failed too
    trajectory.error = plain_error(error, task_dir=task_dir, workdir=workdir)
    if earlier:
        trajectory.error = f"{earlier}; then grading failed: {trajectory.error}"[:4000]
    logger.warning("episode of %s failed: %s", trajectory.task_id, trajectory.error)
    if context is not None:
        try:
            _record_turns(trajectory, context)
        except Exception:  # turns that cannot be recorded are dropped; the error above says why the episode failed
            pass
    trajectory.rewards = {name: {"name": name, "total": 0.0, "components": {}, "details": {"error": True}}
                          for name in ("dense", "sparse")}


def _record_turns(trajectory: Trajectory, context: EpisodeContext) -> None:
    trajectory.turns = [turn.to_dict() for turn in context.turns]
    trajectory.tokens = token_records(trajectory.turns)
    trajectory.sequence = flatten_tokens(trajectory.tokens)
    policy_turns = [t for t in trajectory.turns if t["role"] == "assistant"]
    trajectory.format_rate = sum(t["well_formed"] for t in policy_turns) / len(policy_turns) if policy_turns else 0.0
    steps = [t["wall_s"] for t in trajectory.turns if t["step"] is not None]
    trajectory.mean_step_latency_s = statistics.fmean(steps) if steps else None
    if "tree" in context.options:
        trajectory.extra["tree"] = context.options["tree"]


def _grade(trajectory: Trajectory, task_dir: Path, workdir: Path) -> Any:
    from sandmle.tasks.grading import grade_submission

    report = grade_submission(task_dir, workdir / "submission.csv", split="private", episode_dir=workdir)
    trajectory.grade = report
    return report


def last_valid_score(trajectory: Trajectory, final: Any, shown: list) -> Any:
    """score_answers: the report the reward reads is the last valid one the Score tool showed the agent (the agent
    locks in what it saw, as SandMLE's released code rewards); without one, an invalid report. The grade of the final
    file stays in trajectory.grade; extra["reward_from"] says which report paid."""
    import dataclasses

    calls = [number for number, report in enumerate(shown, start=1) if report.valid_submission]
    if calls:
        paid = shown[calls[-1] - 1]
        trajectory.extra["reward_from"] = {"rule": "last_valid_score", "score_call": calls[-1], "score": paid.score,
                                           "milestone": paid.milestone}
        return paid
    trajectory.extra["reward_from"] = {"rule": "last_valid_score", "score_call": None, "score": None, "milestone": None}
    return dataclasses.replace(final, valid_submission=False, score=None, milestone=None, gold_medal=False,
                               silver_medal=False, bronze_medal=False, any_medal=False, above_median=False,
                               position_score=0.0, errors=["no valid Score output: the reward reads the last one seen"])


def _reward_all(trajectory: Trajectory, report: Any, *, judge: Any = None, rubric_weight: float = 0.2) -> None:
    """Every scheme's breakdown; needs the format rate, so it runs after the turns. The rubric ones need a judge."""
    from sandmle.rewards.schemes import combine_dense_rubric, compute_reward

    record = trajectory.to_dict()
    breakdowns = {name: compute_reward(name, report=report, format_rate=trajectory.format_rate, trajectory=record)
                  for name in ("dense", "sparse")}
    if judge is not None:
        breakdowns["rubric"] = compute_reward("rubric", report=report, format_rate=trajectory.format_rate,
                                              trajectory=record, judge=judge)
        breakdowns["dense+rubric"] = combine_dense_rubric(breakdowns["dense"], breakdowns["rubric"],
                                                          rubric_weight=rubric_weight)
    trajectory.rewards = {name: breakdown.to_dict() for name, breakdown in breakdowns.items()}


def _make_pool(concurrency: int) -> Any:
    """A warm pool with a zygote per concurrent episode (up to the cores); None where one cannot run (cold steps)."""
    import os

    from sandmle.sandbox import SandboxPool, SandboxUnavailable

    try:
        return SandboxPool(max_zygotes=max(1, min(concurrency, os.cpu_count() or 1)))
    except SandboxUnavailable:
        return None


def run_batch(
    task_dirs: list[Path],
    *,
    scaffold: str,
    policy_spec: str | Policy,
    samples: int,
    concurrency: int,
    config: EpisodeConfig,
    on_trajectory: Callable[[Trajectory], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    pool: Any = None,
    policy_options: dict[str, Any] | None = None,
    skip: set[tuple[str, int]] | frozenset = frozenset(),
    stats: Any = None,
) -> list[Trajectory]:
    """Runs every task `samples` times (one GRPO group per task) on `concurrency` threads, in task-then-sample order.

    `skip` names (task_id, sample_index) pairs already finished (a batch resumed after its worker died): they are not
    run again, and the returned list holds only the episodes run now.

    A failing episode becomes a trajectory with termination "error"; the others go on. `pool` lets callers share
    a warm SandboxPool across batches; without one the batch starts and closes its own. `policy_options` go to
    make_policy with a spec string (e.g. api_key_env for an openai policy).

    Generation goes through sandmle.generation: a local model answers the turns of all live episodes in one batched
    call, a server gets all their requests at once. `stats` (a GenerationStats) collects its counters.
    """
    if samples < 1 or concurrency < 1:
        raise UsageError("samples and concurrency must be at least 1")
    get_scaffold(scaffold)
    check_scaffold_options(scaffold, config.scaffold_options)  # a bad option fails before any episode runs
    from sandmle.episodes.threads import run_episodes
    from sandmle.generation import generation_policy

    policy = make_policy(policy_spec, **(policy_options or {})) if isinstance(policy_spec, str) else policy_spec
    policy = generation_policy(policy, max_batch=concurrency, stats=stats)
    own_pool = pool is None
    pool = _make_pool(concurrency) if own_pool else pool

    def one(job: tuple[int, Path, int]) -> Trajectory:
        group, task_dir, sample_index = job
        return run_episode(task_dir, scaffold=scaffold, policy=policy, config=config, pool=pool,
                           sample_index=sample_index, group_id=f"{group}:{_task_id(task_dir)}")

    def failed(job: tuple[int, Path, int], error: Exception) -> Trajectory:
        # run_episode catches its own failures; this keeps the episode if that fails too
        group, task_dir, sample_index = job
        trajectory = Trajectory(task_id=_task_id(task_dir), scaffold=scaffold, policy=getattr(policy, "name", "policy"),
                                sample_index=sample_index, group_id=f"{group}:{_task_id(task_dir)}",
                                feedback=config.feedback)
        _fail(trajectory, error, None, task_dir=task_dir, workdir=task_dir)
        return trajectory

    jobs = [(group, Path(task_dir), k) for group, task_dir in enumerate(task_dirs) for k in range(samples)
            if not skip or (_task_id(Path(task_dir)), k) not in skip]
    try:
        results = run_episodes(jobs, one, policy=policy, concurrency=concurrency, on_error=failed,
                               on_result=on_trajectory, should_cancel=should_cancel)
    finally:
        close = getattr(pool, "close", None) if own_pool else None
        if close:
            close()
    return [t for t in results if t is not None]


def _sandbox_s(trajectories: list[Trajectory]) -> float:
    """Seconds of sandboxed steps, summed over episodes (they overlap: this is work, not wall time)."""
    return sum(turn.get("wall_s") or 0.0 for t in trajectories for turn in t.turns if turn.get("step") is not None)


def summarize(trajectories: list[Trajectory], *, stats: Any = None) -> dict[str, Any]:
    """Valid rate, medal rate, mean reward per scheme and the schemes compared on the same episodes, mean step
    latency, format rate, termination counts, the episodes that ended in an error (how many, the commonest reason),
    and with the batch's GenerationStats its generation figures (calls, mean batch size, tokens/s,
    generation/sandbox/wait s)."""
    from sandmle.episodes.failures import tally_failures
    from sandmle.evaluation.metrics import outcome_rates
    from sandmle.rewards.comparison import scheme_comparison

    count = len(trajectories)
    latencies = [t.mean_step_latency_s for t in trajectories if t.mean_step_latency_s is not None]
    schemes = sorted({name for t in trajectories for name in t.rewards})
    terminations: dict[str, int] = {}
    for t in trajectories:
        terminations[t.termination] = terminations.get(t.termination, 0) + 1
    return {
        "episodes": count,
        **outcome_rates((t.grade for t in trajectories), names=("valid_rate", "medal_rate", "above_median_rate")),
        "mean_reward": {name: statistics.fmean(t.rewards[name]["total"] for t in trajectories if name in t.rewards)
                        for name in schemes},
        # Dense against sparse on the same episodes; a task's samples are the group GRPO would normalise.
        "reward_schemes": scheme_comparison((t.task_id, t.rewards) for t in trajectories),
        "mean_format_rate": statistics.fmean(t.format_rate for t in trajectories) if count else 0.0,
        "mean_step_latency_s": statistics.fmean(latencies) if latencies else None,
        "terminations": terminations,
        "failures": tally_failures((t.error or "unknown error") if t.termination == "error" else None
                                   for t in trajectories).to_dict(),
        **({**stats.summary(), "sandbox_s": round(_sandbox_s(trajectories), 4)} if stats is not None else {}),
    }
