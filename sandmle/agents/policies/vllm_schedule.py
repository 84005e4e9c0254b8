"""vLLM's side of the annealed sampling schedule (sandmle/agents/policies/schedule.py): a logits processor on vLLM's
v1 interface that divides each scheduled request's logits by the temperature of the token it is about to sample.

A request carries its schedule in SamplingParams.extra_args (`vllm_xargs` over the OpenAI API), flat, under the
XARG_PREFIX, and is sent at temperature 1.0, so vLLM's own temperature step changes nothing and this processor sets
the temperature. The engine must return processed logprobs (`logprobs_mode="processed_logprobs"`, `--logprobs-mode
processed_logprobs` on a server), so that each recorded logprob is the one of the distribution the token was drawn
from, as the hf policy records it. A server runs it with `--logits-processors
sandmle.agents.policies.vllm_schedule:AnnealedTemperature`.
"""

from __future__ import annotations

from typing import Any

from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor
from vllm.v1.sample.logits_processor.builtin import process_dict_updates

from sandmle.agents.policies.base import SamplingParams
from sandmle.agents.policies.schedule import schedule_from_xargs, temperature_at

PROCESSOR_PATH = "sandmle.agents.policies.vllm_schedule:AnnealedTemperature"


class AnnealedTemperature(LogitsProcessor):
    """Per row: logits / temperature_at(tokens generated so far); rows without a schedule pass unchanged."""

    def __init__(self, vllm_config: Any, device: Any, is_pin_memory: bool) -> None:
        # Row index -> (its schedule, a reference to its running list of output ids, as vLLM keeps it).
        self.rows: dict[int, tuple[SamplingParams, list[int]]] = {}

    def is_argmax_invariant(self) -> bool:
        return True  # a positive temperature never changes the most likely token

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        def new_row(params: Any, _prompt_ids: list[int] | None, output_ids: list[int]):
            schedule = schedule_from_xargs(getattr(params, "extra_args", None))
            return None if schedule is None else (schedule, output_ids)

        process_dict_updates(self.rows, batch_update, new_row)

    def apply(self, logits: Any) -> Any:
        for index, (schedule, output_ids) in self.rows.items():
            logits[index] /= temperature_at(len(output_ids), schedule)
        return logits
