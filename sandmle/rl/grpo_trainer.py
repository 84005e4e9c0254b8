"""TRL's GRPOTrainer with the reference's sequence-mean-token-mean: episodes masked whole leave the mean, and the mean
runs over the whole step (every micro-batch of every training process), not one micro-batch. Imported only where TRL
is (it subclasses TRL's trainer)."""

from __future__ import annotations

import math
from typing import Any

from trl import GRPOTrainer


def trained_episodes(output: dict[str, Any]) -> int:
    """How many of a generation batch's episodes have at least one token in the loss (sampled, not masked)."""
    mask = output["completion_mask"]
    if output.get("tool_mask") is not None:
        mask = mask * output["tool_mask"]
    return int((mask.sum(-1) > 0).sum().item())


def importance_weights(log_diff: Any, *, mode: str, cap: float, floor: float | None = None) -> Any:
    """TRL's vLLM importance weights from per-token log-prob gaps (trained minus behaviour, 0 where masked): the
    token modes weight each token, the sequence modes the whole episode by its summed gap; truncate clips the
    weight into [floor, cap], mask zeroes it outside. Written here because TRL computes them inline, for vLLM only."""
    import torch

    gaps = log_diff.sum(dim=-1, keepdim=True) if mode.startswith("sequence") else log_diff
    ratio = torch.exp(gaps)
    if mode.endswith("truncate"):
        return torch.clamp(ratio, min=floor, max=cap)
    low = -math.inf if floor is None else floor
    return ratio.masked_fill((ratio < low) | (ratio > cap), 0.0)


class SandMLEGRPOTrainer(GRPOTrainer):
    """`loss_type: grpo` as verl's `seq-mean-token-mean`: the mean over the step's trained episodes of each one's token
    mean. Everything else is TRL's.

    TRL's grpo loss averages token means over every row of a micro-batch, so an episode masked whole (a timeout, an
    error: env_mask all 0) adds a zero and dilutes the mean, and each micro-batch is averaged on its own. Its policy
    loss is linear in each row's term (no entropy bonus is configured here), so rescaling a micro-batch's policy loss
    by rows x accumulation steps x processes / trained episodes of the step gives exactly sum(token means) / trained
    episodes once DDP (or ZeRO, or FSDP) averages the gradients over the processes. The trained episodes are counted
    over every process, once a step, where the step's episodes are scored; each trained episode of the step weighs
    1 / that count however the step splits over processes and accumulation steps. verl splits the filtered batch
    evenly over its ranks; here each process trains its own episodes, whose masked counts differ, so a count of each
    process's own would weigh an episode 1 / (processes x its process's count). A mixture-of-experts router loss,
    where a model has one, keeps TRL's scale (it is a per-micro-batch mean, not a sum over episodes).
    `loss_normalizer` a number divides the step's summed token means by that fixed count instead (the release's 256).
    Rewriting TRL's 180-line `_compute_loss` for one denominator would fork it; this keeps its clipping, importance
    weights, KL and metrics.

    `behaviour_correction`: the samples come from another distribution than the trained one, an older copy of the
    weights (rollout_mode async, sandmle/rl/async_rollouts.py) or other temperatures (temperature_schedule annealed,
    sandmle/agents/policies/schedule.py), so each token's loss is weighted by TRL's importance weights between the
    trained policy and the recorded behaviour logprobs, in the run's importance_sampling mode. TRL applies them only
    when vLLM generated.
    """

    behaviour_correction: str | None = None
    rollout_mode: str = "sync"
    loss_normalizer: str | float = "trained"
    _router_loss: Any = None  # this micro-batch's router term, as TRL scaled it

    def _generate_and_score_completions(self, inputs: Any) -> dict[str, Any]:
        output = super()._generate_and_score_completions(inputs)
        if self.model.training:
            self._trained_episodes = self.step_trained_episodes(output)
        if self.behaviour_correction and not self.use_vllm and output.get("sampling_per_token_logps") is not None:
            output["importance_sampling_ratio"] = self.behaviour_importance_ratio(output)
        return output

    def step_trained_episodes(self, output: dict[str, Any]) -> int:
        """The step's trained episodes over every process: this process's generation batch (its whole share of the
        step) counted, then summed over the processes. Every process reaches it once a step, as TRL's reward gather."""
        import torch

        local = torch.tensor(trained_episodes(output), device=self.accelerator.device)
        return int(self.accelerator.reduce(local, reduction="sum").item())

    def behaviour_importance_ratio(self, output: dict[str, Any]) -> Any:
        """Per-token weights trained/behaviour for a batch the behaviour copy generated; logged as TRL logs vLLM's."""
        import torch

        prompt_completion = torch.cat([output["prompt_ids"], output["completion_ids"]], dim=1)
        attention = torch.cat([output["prompt_mask"], output["completion_mask"]], dim=1)
        with torch.no_grad():
            trained, _, _ = self._get_per_token_logps_and_entropies(
                self.model, prompt_completion, attention, output["completion_ids"].size(1),
                batch_size=self.args.per_device_train_batch_size)
        mask = output["completion_mask"]
        if output.get("tool_mask") is not None:
            mask = mask * output["tool_mask"]
        gaps = torch.nan_to_num((trained - output["sampling_per_token_logps"]) * mask, nan=0.0)
        ratio = importance_weights(gaps, mode=self.behaviour_correction, cap=self.vllm_importance_sampling_clip_max,
                                   floor=self.vllm_importance_sampling_clip_min)
        kept = ratio.expand_as(mask)[mask.bool()]
        if kept.numel():
            metrics = self._metrics["train" if self.model.training else "eval"]
            metrics["sampling/importance_sampling_ratio/min"].append(kept.min().item())
            metrics["sampling/importance_sampling_ratio/mean"].append(kept.mean().item())
            metrics["sampling/importance_sampling_ratio/max"].append(kept.max().item())
        return ratio

    def _compute_loss(self, model: Any, inputs: dict[str, Any]) -> Any:
        self._router_loss = None  # set again by this micro-batch's forward where the model has a router loss
        if self.behaviour_correction and not self.use_vllm and "importance_sampling_ratio" in inputs:
            # TRL multiplies the token losses by inputs["importance_sampling_ratio"] only under use_vllm, the one
            # place `_compute_loss` reads it; the flag is raised for this call alone rather than fork the method.
            self.use_vllm = True
            try:
                loss = super()._compute_loss(model, inputs)
            finally:
                self.use_vllm = False
        else:
            loss = super()._compute_loss(model, inputs)
        if self.loss_type != "grpo" or not self.model.training:
            return loss
        rows = inputs["completion_mask"].size(0)
        if self.loss_normalizer == "trained":
            # Without a count (no step scored yet) the scale is 1: TRL's own mean.
            step_rows = rows * self.current_gradient_accumulation_steps * self.accelerator.num_processes
            normalizer = max(getattr(self, "_trained_episodes", step_rows), 1)
        else:
            normalizer = float(self.loss_normalizer)
        scale = rows * self.current_gradient_accumulation_steps * self.accelerator.num_processes / normalizer
        router = self._router_loss
        if router is None:
            return loss * scale
        return (loss - router) * scale + router

    def _get_per_token_logps_and_entropies(self, *args: Any, **kwargs: Any) -> Any:
        # Keeps the router term TRL adds to this micro-batch's loss, so that the rescaling above leaves it as TRL
        # scaled it (the term's coefficient over accumulation steps; TRL 1.16 `_compute_loss`).
        logps, entropies, aux_loss = super()._get_per_token_logps_and_entropies(*args, **kwargs)
        if aux_loss is not None and self.model.training:
            self._router_loss = self.router_aux_loss_coef * aux_loss / self.current_gradient_accumulation_steps
        return logps, entropies, aux_loss
