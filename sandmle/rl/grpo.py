"""Trajectory-wise GRPO: TRL's GRPOTrainer with a rollout_func that plays whole episodes through the one runner."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import statistics
import threading
import time
from pathlib import Path
from typing import Any, Callable

from sandmle.agents.policies.base import SamplingParams
from sandmle.agents.policies.schedule import sampling_schedule
from sandmle.episodes.budget import episode_budget_kwargs
from sandmle.errors import UsageError
from sandmle.evaluation.metrics import outcome_rates
from sandmle.generation import BatchedPolicy, GenerationStats, generation_policy
from sandmle.rl.config import TrainConfig, save_resolved
from sandmle.rl.curriculum import TaskSampler
from sandmle.rl.process_split import check_process_split
from sandmle.rl.sharding import check_generation_sharding
from sandmle.settings import ConfigError
from sandmle.rl.rollouts import (EpisodeFn, StepRollouts, default_episode, episode_sample, group_has_spread,
                                 reward_component_means, run_groups)
from sandmle.episodes.runner import EpisodeConfig
from sandmle.rl.run_files import RunFiles, last_checkpoint
from sandmle.rl.trackers import check_trackers, tracker_setup
from sandmle.rl.trackers import run_name as tracker_run_name


def check_paths(config: TrainConfig) -> None:
    """Missing checkpoints and bundles are named before torch loads (the CLI's exit 2, the form's field error)."""
    if not Path(config.model).is_dir():
        raise ConfigError("model", f"checkpoint directory not found: {config.model}")
    if config.use_vllm and "reply_menu" in _model_config(Path(config.model)):
        raise ConfigError("use_vllm", "a reply-menu checkpoint chooses its replies in the hf policy; vLLM would not")
    for key in ("tasks", "eval_tasks"):
        for task in getattr(config, key):
            if not (Path(task) / "public").is_dir():
                raise ConfigError(key, f"not a task bundle (no public/ folder): {task}")
    if config.environments == "adaptive":
        from sandmle.synth.successor import read_task

        for task in config.tasks:
            try:
                read_task(Path(task))
            except UsageError as error:  # an imported task has no spec to make successors from
                raise ConfigError("tasks", f"adaptive environments need synthesized tasks: {error}") from None


def _model_config(model_dir: Path) -> dict:
    try:
        return json.loads((model_dir / "config.json").read_text())
    except (OSError, ValueError):
        return {}


def episode_config(config: TrainConfig) -> EpisodeConfig:
    judge = None
    if config.reward in ("rubric", "dense+rubric"):
        from sandmle.llm.client import ChatClient

        judge = ChatClient(base_url=config.judge_url, model=config.judge_model, api_key=os.environ.get(config.judge_key_env))
    episode_budgets, sampling_budgets = episode_budget_kwargs(config.values)
    return EpisodeConfig(feedback=config.feedback, **episode_budgets,
                         sampling=SamplingParams(**sampling_budgets, **sampling_schedule(config.values)),
                         seed=config.seed, rubric_judge=judge, scaffold_options=dict(config.scaffold_options))


class GRPORun:
    """One run's state between TRL's calls: the task sampler, the sandbox pool, the step's rollouts and its files."""

    def __init__(self, config: TrainConfig, *, episode_fn: EpisodeFn, tokenizer: Any, files: RunFiles,
                 on_step: Callable[[dict], None] | None, should_stop: Callable[[], bool] | None) -> None:
        self.config = config
        self.episode_fn = episode_fn
        self.tokenizer = tokenizer
        self.files = files
        self.on_step = on_step
        self.should_stop = should_stop
        self.task_dirs = [Path(t) for t in config.tasks]
        self.rank = int(os.environ.get("RANK", "0"))
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.sampler = TaskSampler(len(self.task_dirs), mode=config.task_sampling, seed=config.seed + 7919 * self.rank,
                                   success_threshold=config.success_threshold)
        self.episode = episode_config(config)
        self.pool = None
        self.current: StepRollouts | None = None
        self.pending_eval: dict[str, Any] = {}
        self.checkpoints: list[str] = []
        self.stopped = False
        self.trainer: Any = None
        self.episode_errors: list[str | None] = []  # one entry per training episode of this process: None = ran
        self.controller = None
        self.environment_metrics: dict[str, Any] = {}
        self.async_metrics: dict[str, Any] = {}
        self.worker = None  # rollout_mode async: the RolloutWorker and the behaviour weights it generates with
        self.behaviour = None
        self.draw_lock = threading.Lock()  # the sampler between the worker's draws and the trainer's checkpoints
        self.pool_lock = threading.Lock()
        if config.environments == "adaptive":
            if self.world > 1:
                raise ConfigError("environments", "adaptive environments run in one training process (one "
                                                  "controller per set); launch without torchrun or with fixed")
            from sandmle.rl.frontier_controller import FrontierController

            self.controller = FrontierController(self.task_dirs, config=config,
                                                 out_dir=config.output_dir / "environments")

    def replace_task(self, slot: int) -> None:
        """The controller put a successor in `slot`: the draw takes it from now on, with a fresh history."""
        self.task_dirs[slot] = self.controller.task_dirs()[slot]
        self.sampler.forget(slot)

    def curriculum_state(self) -> dict[str, Any]:
        with self.draw_lock:
            state = self.sampler.state()
        if self.controller is not None:
            state["environments"] = self.controller.state()
        return state

    def load_curriculum(self, state: dict[str, Any]) -> None:
        self.sampler.load_state(state)
        if self.controller is not None and state.get("environments"):
            self.controller.load_state(state["environments"])
            self.task_dirs = self.controller.task_dirs()

    # --- rollouts -------------------------------------------------------------------------------------------------
    def policy(self, trainer: Any, stats: GenerationStats | None = None) -> BatchedPolicy:
        """The current weights behind the generation layer: one batched call per flush of the live episodes' turns."""
        model = trainer.accelerator.unwrap_model(trainer.model)
        if self.config.use_vllm:
            from sandmle.rl.vllm_policy import VLLMTurnPolicy

            backend: Any = VLLMTurnPolicy(trainer, self.tokenizer)
        else:
            from sandmle.agents.policies.hf import HFPolicy
            from sandmle.agents.policies.menu import with_reply_menu

            backend = with_reply_menu(HFPolicy.from_model(model, self.tokenizer, name="hf:training"))
        return generation_policy(backend, max_batch=self.config.concurrency, max_wait_s=self.config.generation_wait_s,
                                 stats=stats)

    def sandbox_pool(self) -> Any:
        with self.pool_lock:  # rollout_mode async: the worker's first batch and an evaluation may ask at once
            return self._sandbox_pool()

    def _sandbox_pool(self) -> Any:
        if self.pool is None and self.episode_fn is default_episode:
            from sandmle.sandbox import SandboxPool, SandboxUnavailable

            try:
                self.pool = SandboxPool(max_zygotes=max(1, min(self.config.concurrency, os.cpu_count() or 1)))
            except SandboxUnavailable:
                self.pool = None  # cold sandboxed steps: slower, same isolation
        return self.pool

    def rollout(self, prompts: list, trainer: Any) -> dict[str, list]:
        """TRL's rollout_func: `prompts` holds each dataset row G times; only its length matters, the tasks come from
        the run's own sampler (so the curriculum and dynamic sampling can choose and replace them)."""
        config = self.config
        step = trainer.state.global_step + 1
        groups_wanted = len(prompts) // config.group_size
        if self.controller is not None:  # successors finished since the last step join the draw now
            self.environment_metrics = self.controller.after_step(step, self.replace_task)
        if config.rollout_mode == "async":
            rollouts = self.async_rollouts(trainer, step, groups_wanted)
        else:
            model = trainer.model
            was_training = model.training
            model.eval()
            try:
                rollouts = self.collect(step, groups_wanted, lambda stats: self.policy(trainer, stats))
            finally:
                model.train(was_training)
        if self.controller is not None:
            self.environment_metrics |= self.controller.metrics(rollouts.task_indices)
        self.current = rollouts
        self.files.write_trajectories(step, rollouts.trajectories)
        log_to_trackers(trainer, "reward_components", reward_component_means(
            rollouts.trajectories, reward_scheme=config.reward, counted=[s.reward is not None for s in rollouts.samples]))
        samples = rollouts.samples
        return {"prompt_ids": [s.prompt_ids for s in samples], "completion_ids": [s.completion_ids for s in samples],
                "logprobs": [s.logprobs for s in samples], "env_mask": [s.env_mask for s in samples],
                "episode_reward": [s.reward for s in samples]}

    def collect(self, step: int, groups_wanted: int, make_policy: Callable[[GenerationStats], Any]) -> StepRollouts:
        """One step's groups: drawn, played G times each, refilled under dynamic sampling; in group order."""
        config, group_size = self.config, self.config.group_size
        started = time.monotonic()
        rollouts = StepRollouts()
        policy = make_policy(rollouts.generation)
        task_dirs = list(self.task_dirs)  # one group, one task, even if the set moves meanwhile
        # The annealing schedule cools more slowly as training goes on (its decay grows with the steps taken).
        episode = dataclasses.replace(self.episode, sampling=dataclasses.replace(self.episode.sampling,
                                                                                 ead_training_step=step - 1))
        kept: list[tuple[int, list, list]] = []  # (task index, trajectories, samples) per group
        held_back: list[tuple[int, list, list]] = []
        rounds = config.dynamic_sampling_rounds if config.dynamic_sampling else 1
        for round_index in range(rounds):
            need = groups_wanted - len(kept)
            if need <= 0:
                break
            with self.draw_lock:
                indices = self.sampler.draw(need)
            first_slot = (((step * (rounds + 1)) + round_index) * self.world + self.rank) * groups_wanted * group_size
            trajectories = run_groups(task_dirs, indices, group_size=group_size, first_slot=first_slot,
                                      episode_fn=self.episode_fn, scaffold=config.scaffold, policy=policy,
                                      config=episode, pool=self.sandbox_pool(), concurrency=config.concurrency)
            rollouts.groups_drawn += len(indices)
            self.check_episodes(trajectories)
            for g, index in enumerate(indices):
                group = [t.to_dict() for t in trajectories[g * group_size:(g + 1) * group_size]]
                samples = [episode_sample(t, reward_scheme=config.reward, max_episode_tokens=config.max_episode_tokens,
                                          pad_id=self.tokenizer.pad_token_id,
                                          masked_in_baseline=config.masked_in_baseline,
                                          mask_step_timeout_share=config.mask_step_timeout_share) for t in group]
                with self.draw_lock:
                    self.sampler.record(index, [s.reward for s in samples if s.reward is not None])
                if self.controller is not None:
                    self.controller.record(index, [s.reward for s in samples if s.reward is not None])
                if config.dynamic_sampling and not group_has_spread(samples):
                    held_back.append((index, group, samples))
                else:
                    kept.append((index, group, samples))
        # Still short after the last round: fill with zero-spread groups (they carry no advantage, but TRL's
        # batch has a fixed size); each is reported as drawn and dropped only if it was replaced.
        fill = held_back[: groups_wanted - len(kept)]
        rollouts.groups_dropped = len(held_back) - len(fill)
        for index, group, samples in kept + fill:
            rollouts.task_indices.append(index)
            rollouts.trajectories.extend(group)
            rollouts.samples.extend(samples)
        rollouts.rollout_s = time.monotonic() - started
        return rollouts

    def async_rollouts(self, trainer: Any, step: int, groups_wanted: int) -> StepRollouts:
        """rollout_mode async: the trainer's weights go to the behaviour copy, then the worker's batch for `step`."""
        from sandmle.rl.async_rollouts import BehaviourWeights, RolloutWorker, episode_staleness

        model = trainer.accelerator.unwrap_model(trainer.model)
        if self.worker is None:
            self.behaviour = BehaviourWeights(model)
            self.behaviour.version = step - 1
            self.worker = RolloutWorker(lambda batch_step: self.collect(batch_step, groups_wanted,
                                                                         self.behaviour_policy),
                                        first_step=step, last_step=self.config.steps,
                                        max_staleness=self.config.max_staleness)
        else:
            self.behaviour.refresh(model, step - 1)
        self.worker.advance(step - 1)
        rollouts, waited = self.worker.take(step)
        lags = [lag for lag in (episode_staleness(t, step - 1) for t in rollouts.trajectories) if lag is not None]
        self.async_metrics = {"rollout_wait_s": waited, "staleness_mean": statistics.fmean(lags) if lags else 0.0,
                              "staleness_max": max(lags, default=0)}
        return rollouts

    def behaviour_policy(self, stats: GenerationStats) -> Any:
        from sandmle.agents.policies.hf import HFPolicy
        from sandmle.agents.policies.menu import with_reply_menu
        from sandmle.rl.async_rollouts import VersionedBackend

        backend = with_reply_menu(HFPolicy.from_model(self.behaviour.model, self.tokenizer, name="hf:behaviour"))
        return generation_policy(VersionedBackend(backend, self.behaviour), max_batch=self.config.concurrency,
                                 max_wait_s=self.config.generation_wait_s, stats=stats)

    def check_episodes(self, trajectories: list) -> None:
        """Count the run's failed episodes; while not one episode has run to its end, stop with the commonest reason
        (every sample is masked: the run would "train" on nothing and report a reward of 0)."""
        from sandmle.episodes.failures import EpisodesFailed

        self.episode_errors.extend((t.error or "unknown error") if t.termination == "error" else None
                                   for t in trajectories)
        failures = self.failures()
        if failures.every_episode_failed:
            raise EpisodesFailed(failures.job_error())

    def failures(self) -> Any:
        from sandmle.episodes.failures import tally_failures

        return tally_failures(self.episode_errors)

    def evaluate(self, trainer: Any, step: int) -> dict[str, Any]:
        """The held-out tasks with the current weights, through the same runner; no update."""
        if not self.config.eval_tasks:
            return {}
        started = time.monotonic()
        policy = self.policy(trainer)
        model = trainer.model
        was_training = model.training
        model.eval()
        try:
            eval_dirs = [Path(t) for t in self.config.eval_tasks]
            trajectories = run_groups(eval_dirs, list(range(len(eval_dirs))), group_size=self.config.eval_samples,
                                      first_slot=10**9 + step * len(eval_dirs) * self.config.eval_samples,
                                      episode_fn=self.episode_fn, scaffold=self.config.scaffold, policy=policy,
                                      config=self.episode, pool=self.sandbox_pool(), concurrency=self.config.concurrency)
        finally:
            model.train(was_training)
        records = [t.to_dict() for t in trajectories]
        self.files.write_trajectories(step, records, prefix="eval-step")
        count = len(records) or 1
        rewards = [(r.get("rewards") or {}).get(self.config.reward, {}).get("total", 0.0) for r in records]
        components = reward_component_means(records, reward_scheme=self.config.reward)
        log_to_trackers(trainer, "eval_reward_components", components)
        return {"eval_reward_mean": sum(rewards) / count, "eval_reward_components": components,
                **{f"eval_{name}": rate for name, rate in outcome_rates(t.grade for t in trajectories).items()},
                "eval_s": time.monotonic() - started}

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close(timeout_s=60.0)
            self.worker = None
        if self.controller is not None:
            self.controller.close()
        close = getattr(self.pool, "close", None)
        if close:
            close()
        self.pool = None


def log_to_trackers(trainer: Any, prefix: str, values: dict[str, float]) -> None:
    """Adds `prefix/<name>` to the step's log: TRL averages its `_metrics` into the log that every tracker (and
    TRL's own `rewards/<function>/mean`) receives at the step's end."""
    metrics = getattr(trainer, "_metrics", None)
    if metrics is None:
        return
    for name, value in values.items():
        metrics["train"][f"{prefix}/{name}"].append(value)


def load_model(config: TrainConfig) -> tuple[Any, Any, Any]:
    """The tokenizer, the model and (for LoRA) peft's config, from the checkpoint directory."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(config.model)
    if not getattr(tokenizer, "chat_template", None):
        raise ConfigError("model", f"the tokenizer in {config.model} has no chat_template")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = torch.bfloat16 if config.bf16 else torch.float32
    model = AutoModelForCausalLM.from_pretrained(config.model, dtype=dtype)
    peft_config = None
    if config.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(r=config.lora["r"], lora_alpha=config.lora["alpha"],
                                 lora_dropout=config.lora["dropout"], target_modules=config.lora["target_modules"],
                                 task_type="CAUSAL_LM")
    return tokenizer, model, peft_config


def check_step_split(config: TrainConfig) -> int:
    """The number of training processes (torchrun's and accelerate's WORLD_SIZE), once the step splits over them."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    check_process_split(tasks_per_step=config.tasks_per_step, group_size=config.group_size,
                        micro_batch=config.micro_batch_size or config.group_size, processes=world)
    return world


def trainer_args(config: TrainConfig, *, report_to: list[str] | str = "none") -> Any:
    """TRL's GRPOConfig for SandMLE's recipe: one generation batch (tasks_per_step x G episodes) = one optimizer step."""
    import torch
    from trl import GRPOConfig

    world = check_step_split(config)
    micro = config.micro_batch_size or config.group_size
    accumulation = config.group_size * config.tasks_per_step // world // micro
    options: dict[str, Any] = {}
    if config.use_vllm:
        options.update(use_vllm=True, vllm_mode=config.vllm_mode,
                       vllm_gpu_memory_utilization=config.vllm_gpu_memory_utilization,
                       **importance_sampling_args(config))
        if config.vllm_server_url:
            options["vllm_server_base_url"] = config.vllm_server_url
    elif config.rollout_mode == "async" or config.temperature_schedule == "annealed":
        # Samples from another distribution than the trained one (older weights, other temperatures): weighted by
        # SandMLEGRPOTrainer.
        options.update(importance_sampling_args(config))
    return GRPOConfig(
        output_dir=str(config.output_dir), per_device_train_batch_size=micro, gradient_accumulation_steps=accumulation,
        steps_per_generation=accumulation, num_generations=config.group_size, max_steps=config.steps,
        learning_rate=config.learning_rate, lr_scheduler_type="constant", warmup_steps=0,
        weight_decay=config.weight_decay, loss_type=config.loss_type,
        epsilon=config.clip_low, epsilon_high=config.clip_high, beta=config.kl_coef, temperature=config.temperature,
        max_completion_length=config.max_tokens, scale_rewards="group", num_iterations=1,
        save_strategy="steps", save_steps=config.save_every, logging_steps=1, report_to=report_to,
        run_name=tracker_run_name(config), seed=config.seed,
        data_seed=config.seed, use_cpu=not torch.cuda.is_available(), bf16=config.bf16,
        gradient_checkpointing=config.gradient_checkpointing, shuffle_dataset=False, disable_tqdm=True,
        log_completions=False, remove_unused_columns=False, save_only_model=False, **options)


def importance_sampling_args(config: TrainConfig) -> dict[str, Any]:
    """TRL's importance-sampling settings for the run's `importance_sampling` and cap (vLLM runs, and rollout_mode
    async: the hf backend in sync mode samples with the trainer's own weights)."""
    if config.importance_sampling == "off":
        return {"vllm_importance_sampling_correction": False}
    return {"vllm_importance_sampling_correction": True, "vllm_importance_sampling_mode": config.importance_sampling,
            "vllm_importance_sampling_clip_max": config.importance_sampling_cap}


def trainer_settings(trainer: Any) -> dict[str, Any]:
    """What the trainer was built with, read back from it (the run's record and the tests' check of the wiring)."""
    use_vllm = bool(trainer.use_vllm)
    correction = (use_vllm and bool(trainer.vllm_importance_sampling_correction)) or bool(trainer.behaviour_correction)
    return {"loss_type": trainer.loss_type, "weight_decay": trainer.args.weight_decay,
            "importance_sampling": trainer.vllm_importance_sampling_mode if correction else "off",
            "importance_sampling_cap": trainer.vllm_importance_sampling_clip_max if correction else None,
            "epsilon_low": trainer.epsilon_low, "epsilon_high": trainer.epsilon_high, "beta": trainer.beta,
            "scale_rewards": trainer.scale_rewards, "use_vllm": use_vllm,
            "rollout_mode": trainer.rollout_mode, "loss_normalizer": trainer.loss_normalizer}


def train_grpo(config: TrainConfig, *, resume: bool = False, on_step: Callable[[dict], None] | None = None,
               should_stop: Callable[[], bool] | None = None, episode_fn: EpisodeFn | None = None,
               advantage_sign: float = 1.0) -> dict:
    """Runs (or with `resume`, continues) a GRPO job; returns steps_done, checkpoints, output_dir and stopped.

    `episode_fn` replaces the one runner (the learning test's tiny environment); `advantage_sign=-1` negates every
    reward, hence every group-normalised advantage (the same test's control run).
    """
    if config.kind != "grpo":
        raise ConfigError("kind", f"train_grpo needs a grpo configuration, not {config.kind}")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    check_paths(config)
    check_trackers(config)
    check_step_split(config)  # before the model loads: a refused split costs nothing
    check_generation_sharding(use_vllm=config.use_vllm)  # hf generation on ZeRO-3/FSDP shards would deadlock
    files = RunFiles(config.output_dir)
    checkpoint = last_checkpoint(config.output_dir) if resume else None
    if resume and checkpoint is None:
        raise ConfigError("output_dir", f"--resume: no checkpoint-<step>/ in {config.output_dir}")
    import torch
    from datasets import Dataset
    from transformers import set_seed
    from sandmle.rl.callbacks import RunCallback
    from sandmle.rl.grpo_trainer import SandMLEGRPOTrainer

    set_seed(config.seed)
    random.seed(config.seed)
    files.start(config, resumed_step=checkpoint_step(checkpoint) if checkpoint else 0)
    save_resolved(config, config.output_dir / "config.yaml")
    tokenizer, model, peft_config = load_model(config)
    run = GRPORun(config, episode_fn=episode_fn or default_episode, tokenizer=tokenizer, files=files,
                  on_step=on_step, should_stop=should_stop)
    if checkpoint:
        run.load_curriculum(files.read_curriculum(checkpoint, rank=run.rank))
        run.checkpoints = files.existing_checkpoints()

    def episode_reward(prompts, completions, episode_reward, **_):
        return [None if reward is None else advantage_sign * reward for reward in episode_reward]

    cpu_vllm = config.use_vllm and config.vllm_mode == "colocate" and not torch.cuda.is_available()
    if cpu_vllm:
        # vLLM's CPU build in this process (the CPU weight sync reaches into its model runner); a small KV cache.
        os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    rows = config.tasks_per_step * int(os.environ.get("WORLD_SIZE", "1"))
    dataset = Dataset.from_dict({"prompt": [f"task slot {i}" for i in range(rows)]})
    report_to, tracker_callbacks = tracker_setup(config)
    trainer = SandMLEGRPOTrainer(model=model, reward_funcs=[episode_reward], args=trainer_args(config, report_to=report_to),
                          train_dataset=dataset, processing_class=tokenizer, peft_config=peft_config,
                          rollout_func=run.rollout, callbacks=[RunCallback(run), *tracker_callbacks])
    run.trainer = trainer
    trainer.rollout_mode = config.rollout_mode
    trainer.loss_normalizer = config.loss_normalizer
    if config.rollout_mode == "async" or config.temperature_schedule == "annealed":
        trainer.behaviour_correction = config.importance_sampling
    if cpu_vllm:
        from sandmle.rl.vllm_policy import use_cpu_weight_sync

        use_cpu_weight_sync(trainer)
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)  # metrics.jsonl and on_step carry the numbers
    try:
        torch.manual_seed(config.seed)
        trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    finally:
        run.close()
    return {"steps_done": trainer.state.global_step, "checkpoints": list(run.checkpoints),
            "output_dir": str(config.output_dir), "stopped": run.stopped, "failures": run.failures().to_dict(),
            "trainer": trainer_settings(trainer)}


def checkpoint_step(path: Path) -> int:
    return int(Path(path).name.rsplit("-", 1)[1])
