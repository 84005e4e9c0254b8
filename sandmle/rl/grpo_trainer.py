"""TRL's GRPOTrainer with the reference's sequence-mean-token-mean: episodes masked whole leave the mean, and the mean
runs over the whole step, not one micro-batch. Imported only where TRL is (it subclasses TRL's trainer)."""

from __future__ import annotations

from typing import Any

from trl import GRPOTrainer


def trained_episodes(output: dict[str, Any]) -> int:
    """How many of a generation batch's episodes have at least one token in the loss (sampled, not masked)."""
    mask = output["completion_mask"]
    if output.get("tool_mask") is not None:
        mask = mask * output["tool_mask"]
    return int((mask.sum(-1) > 0).sum().item())


class SandMLEGRPOTrainer(GRPOTrainer):
    """`loss_type: grpo` as verl's `seq-mean-token-mean`: the mean over the step's trained episodes of each one's token
    mean. Everything else is TRL's.

    TRL's grpo loss averages token means over every row of a micro-batch, so an episode masked whole (a timeout, an
    error: env_mask all 0) adds a zero and dilutes the mean, and each micro-batch is averaged on its own. Its loss is
    linear in each row's term (no entropy bonus is configured here; a mixture-of-experts router loss, where a model has
    one, is scaled alike), so rescaling the micro-batch loss
    by rows x accumulation steps / trained episodes in the step gives exactly sum(token means) / trained episodes.
    Rewriting TRL's 180-line `_compute_loss` for one denominator would fork it; this keeps its clipping, importance
    weights, KL and metrics. Under several processes each one normalises by its own trained episodes (DDP then
    averages, as verl's per-rank aggregation does).
    """

    def _generate_and_score_completions(self, inputs: Any) -> dict[str, Any]:
        output = super()._generate_and_score_completions(inputs)
        if self.model.training:
            self._trained_episodes = trained_episodes(output)
        return output

    def _compute_loss(self, model: Any, inputs: dict[str, Any]) -> Any:
        loss = super()._compute_loss(model, inputs)
        if self.loss_type != "grpo" or not self.model.training:
            return loss
        rows = inputs["completion_mask"].size(0)
        scale = rows * self.current_gradient_accumulation_steps / max(getattr(self, "_trained_episodes", rows), 1)
        return loss * scale
