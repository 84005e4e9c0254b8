"""A local model that answers by choosing one of a few complete replies: it samples only where the replies differ.

A tiny random model cannot write a program, so GRPO on it sees nothing but format errors and zero reward. With a
reply menu (guided choice, as vLLM's `guided_choice`), its sampled tokens decide which complete reply it sends; the
replies' shared and remaining tokens are forced, and marked 0 in the reply's `completion_mask` so that they train
like environment tokens. The choice then runs real code in the sandbox, gets a real grade, and GRPO has to learn
the reply the grader rewards. The menu travels in the model's config (`reply_menu`), so every checkpoint of a
training run keeps it. This is a smoke model's feature (the demo and the tests), not a way to solve tasks.
"""

from __future__ import annotations

import math
from typing import Any

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.agents.policies.hf import HFPolicy
from sandmle.agents.policies.schedule import temperature_at
from sandmle.errors import UsageError

MENU_CONFIG_KEY = "reply_menu"

# A generic tabular solution: extremely randomized trees on every column the test set shares with the training set.
_MODEL_PROGRAM = """\
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
train = pd.read_csv('/public/train.csv')
test = pd.read_csv('/public/test.csv')
key, target = pd.read_csv('/public/sample_submission.csv').columns[:2]
train = train[train[target].notna()]
features = [c for c in test.columns if c in train.columns and c != key]
both = pd.get_dummies(pd.concat([train[features], test[features]]), dtype=float)
y = train[target]
regression = pd.api.types.is_numeric_dtype(y) and y.nunique() > 20
trees = ExtraTreesRegressor if regression else ExtraTreesClassifier
model = make_pipeline(SimpleImputer(strategy='median'), trees(n_estimators=100, random_state=0))
model.fit(both[:len(train)], y)
pd.DataFrame({key: test[key], target: model.predict(both[len(train):])}).to_csv('/workdir/submission.csv', index=False)
print('wrote /workdir/submission.csv')"""

# Three replies of known quality on a tabular task: a fitted model (a medal on most synthesized tasks), the sample
# submission as it is (valid, below the median) and a program that writes to the wrong file (invalid). Each opens
# its thinking with another letter, so the choice is one sampled token.
TABULAR_REPLY_MENU = [
    "<think>Fit extremely randomized trees on the training features.</think>\n<python>\n" + _MODEL_PROGRAM
    + "\n</python>",
    "<think>Submit the sample submission unchanged.</think>\n<python>\nimport shutil\n"
    "shutil.copy('/public/sample_submission.csv', '/workdir/submission.csv')\nprint('copied')\n</python>",
    "<think>Write the sample rows as predictions.</think>\n<python>\nimport shutil\n"
    "shutil.copy('/public/sample_submission.csv', '/workdir/predictions.csv')\nprint('copied')\n</python>",
]

# The same choices in SandMLE's released dialect (react with dialect=sandmle): a fitted model, the sample submission,
# a Score call and the answer; a group of episodes of a few turns then differs in what it wrote and what it scored.
SANDMLE_TABULAR_REPLY_MENU = [
    "<think>Fit extremely randomized trees on the training features.</think>\n<tool_call>\npython\n<code>\n"
    + _MODEL_PROGRAM + "\n</code>\n</tool_call>",
    "<think>Submit the sample submission unchanged.</think>\n<tool_call>\npython\n<code>\nimport shutil\n"
    "shutil.copy('/public/sample_submission.csv', '/workdir/submission.csv')\nprint('copied')\n</code>\n</tool_call>",
    '<think>Grade the submission.</think>\n<tool_call>\n{"name": "Score", "arguments": {"competition_id": "task"}}'
    "\n</tool_call>",
    "<think>Answer with the file written.</think>\n<answer>submission</answer>",
]

def reply_menu(model: Any) -> list[str] | None:
    """The menu a model's config carries, or None for an ordinary model."""
    menu = getattr(getattr(model, "config", None), MENU_CONFIG_KEY, None)
    if menu is None:
        return None
    if not isinstance(menu, list) or len(menu) < 2 or not all(isinstance(r, str) and r for r in menu):
        raise UsageError(f"the model's {MENU_CONFIG_KEY} must list at least two non-empty replies")
    return list(menu)


def with_reply_menu(policy: HFPolicy) -> HFPolicy:
    """The same model and tokenizer behind a MenuPolicy when its config carries a menu; else the policy unchanged."""
    menu = reply_menu(policy.model)
    if menu is None:
        return policy
    menu_policy = MenuPolicy.from_model(policy.model, policy.tokenizer, name=f"{policy.name}+menu",
                                        device=policy.device)
    menu_policy.set_menu(menu)
    return menu_policy


class MenuPolicy(HFPolicy):
    """Samples the model only at the tokens where the menu's replies part ways (restricted to the tokens that keep
    some reply possible); every other token of the chosen reply is forced, with mask 0 and logprob 0 (probability
    1 under the constrained distribution).

    A sampled token's recorded logprob is the model's over its whole vocabulary at the sampling temperature: the
    number the trainer recomputes for that token. An importance ratio between the weights that sampled a reply and
    the weights that train on it (stale samples, rollout_mode async) is then 1 when the two are the same; with the
    restricted distribution's logprob it would sit below 1 by the mass outside the menu. The choice's probability
    under the menu is reply_probabilities'."""

    replies_ids: list[list[int]]

    def set_menu(self, replies: list[str]) -> None:
        eos = self.tokenizer.eos_token_id
        self.replies = list(replies)
        self.replies_ids = [self._encode(reply) + [eos] for reply in replies]
        if len({tuple(ids) for ids in self.replies_ids}) != len(replies):
            raise UsageError("the reply menu lists the same reply twice")
        if any(eos in ids[:-1] for ids in self.replies_ids):
            raise UsageError("a reply of the menu holds the end-of-turn token")

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        torch = self.torch
        prompt = self.prompt_ids(messages)
        generator = torch.Generator(device="cpu")
        generator.manual_seed((sampling.seed or 0) * 1_000_003 + len(prompt))
        completion: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        open_replies = list(range(len(self.replies_ids)))
        edges: dict[str, float] = {}  # temperature and entropy at the first and the last sampled choice
        while True:
            position = len(completion)
            # Replies end with the end-of-turn token and none is another's prefix, so one stays open at the end.
            choices = sorted({self.replies_ids[r][position] for r in open_replies})
            if len(choices) == 1:
                token, logprob, sampled = choices[0], 0.0, 0
            else:
                temperature = temperature_at(position, sampling)
                token, logprob, entropy = self._sample_among(prompt + completion, choices, temperature=temperature,
                                                             generator=generator)
                sampled = 1
                if not edges:
                    edges.update(temperature_first=temperature, entropy_first=entropy)
                edges.update(temperature_last=temperature, entropy_last=entropy)
            completion.append(token)
            mask.append(sampled)
            logprobs.append(logprob)
            open_replies = [r for r in open_replies if self.replies_ids[r][position] == token]
            if len(open_replies) == 1 and len(self.replies_ids[open_replies[0]]) == len(completion):
                break
        chosen = open_replies[0]
        text = self.replies[chosen]
        conversation = [{"role": m["role"], "content": m["content"]} for m in messages]
        self._history = (self._history + [(conversation + [{"role": "assistant", "content": text}],
                                           prompt + completion)])[-64:]
        return PolicyReply(text=text, prompt_ids=prompt, completion_ids=completion, logprobs=logprobs,
                           completion_mask=mask, finish_reason="stop",
                           usage={"prompt_tokens": len(prompt), "completion_tokens": len(completion),
                                  "sampled_tokens": sum(mask), "menu_choice": chosen, **edges})

    def generate_batch(self, requests: list[tuple[list[dict], SamplingParams]]) -> list[PolicyReply]:
        """Each request through the menu in turn: HFPolicy's batched decoding knows no menu, and the menu samples
        one token a reply, so there is nothing to batch."""
        return [self.generate(messages, sampling=sampling) for messages, sampling in requests]

    def _scaled_logits(self, ids: list[int], temperature: float):
        torch = self.torch
        with torch.no_grad():
            logits = self.model(input_ids=torch.tensor([ids], device=self.device)).logits[0, -1].float().cpu()
        return logits / (temperature if temperature > 0 else 1.0)

    def _choice_log_probs(self, ids: list[int], choices: list[int], temperature: float):
        return self.torch.log_softmax(self._scaled_logits(ids, temperature)[choices], dim=-1)

    def _sample_among(self, ids: list[int], choices: list[int], *, temperature: float,
                      generator) -> tuple[int, float, float]:
        """(token, its whole-vocabulary logprob, the entropy of the choice it was drawn from)."""
        scaled = self._scaled_logits(ids, temperature)
        log_probs = self.torch.log_softmax(scaled[choices], dim=-1)
        if temperature <= 0:
            index = int(self.torch.argmax(log_probs))
            return choices[index], 0.0, 0.0
        index = int(self.torch.multinomial(log_probs.exp(), 1, generator=generator))
        entropy = float(-(log_probs.exp() * log_probs).sum())
        return choices[index], float(self.torch.log_softmax(scaled, dim=-1)[choices[index]]), entropy

    def reply_probabilities(self, messages: list[dict], *, temperature: float = 1.0) -> list[float]:
        """The probability of sending each reply of the menu in answer to `messages` (what GRPO should move)."""
        prompt = self.prompt_ids(messages)
        probabilities = []
        for reply_ids in self.replies_ids:
            total = 0.0
            for position in range(len(reply_ids)):
                choices = sorted({ids[position] for ids in self.replies_ids
                                  if len(ids) > position and ids[:position] == reply_ids[:position]})
                if len(choices) > 1:
                    log_probs = self._choice_log_probs(prompt + reply_ids[:position], choices, temperature)
                    total += float(log_probs[choices.index(reply_ids[position])])
            probabilities.append(math.exp(total))
        return probabilities
