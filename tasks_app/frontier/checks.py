"""The launch checks of a frontier run, each refusal a ServiceError naming its field: the band and the policy by the
engine's own rules (sandmle.evaluation.frontier), the policy's host or checkpoint path by the studio's."""

from __future__ import annotations

from sandmle.errors import UsageError
from sandmle_web.errors import ServiceError
from sandmle_web.llm_hosts import openai_policy_refusal
from tasks_app.frontier.models import SAMPLES_MAX


def band_checked(*, band_low: float, band_high: float) -> tuple[float, float]:
    """The band as the engine accepts it; the field named is the bound at fault (the high one for an empty or
    inverted band: it must lie above the low one)."""
    from sandmle.evaluation.frontier import check_band

    try:
        return check_band((band_low, band_high))
    except UsageError as error:
        field = "band_low" if not 0.0 <= band_low <= 1.0 else "band_high"
        raise ServiceError(str(error), field=field) from None


def samples_checked(samples: int) -> int:
    if not 1 <= samples <= SAMPLES_MAX:
        raise ServiceError(f"samples per task must be between 1 and {SAMPLES_MAX}", field="samples")
    return samples


def policy_checked(policy: str, *, user=None) -> str:
    """The policy as it will run (an `hf:` path made real, inside the model roots), after the engine loaded it."""
    from sandmle.evaluation.frontier import check_policy
    from training_app.shared.checkpoints import checkpoint_refusal
    from training_app.shared.model_roots import allowed_policy

    policy = (policy or "").strip()
    if policy.startswith("openai:"):
        refusal = openai_policy_refusal(policy)
        if refusal:
            raise ServiceError(refusal, field="policy")
    elif policy.startswith("hf:"):
        refusal = checkpoint_refusal(policy, user=user)  # the rollout and training forms' rule: inside the roots
        if refusal:
            raise ServiceError(refusal, field="policy")
        policy = allowed_policy(policy, user=user)
    elif policy != "baseline":
        raise ServiceError("expected baseline, openai:MODEL@URL or hf:PATH", field="policy")
    try:
        check_policy(policy)
    except UsageError as error:
        raise ServiceError(str(error), field="policy") from None
    return policy
