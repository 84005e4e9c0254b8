"""LLM-backed domain-mutation and rule-design stages: ask for JSON, check it against a schema, execute and check it,
retry with the problems fed back, and fall back to the procedural stage (saying so in the log) when nothing passes.

Only DNA statistics and statistics of the generated preview features reach the prompts, never seed rows or seed
names. What the LLM chose is recorded in the TaskSpec (domain and rule), so a bundle stays a pure function of its spec.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import jsonschema
import numpy as np
import pandas as pd

from sandmle.llm.client import ChatClient, LLMError, parse_json_reply
from sandmle.synth import rules
from sandmle.synth.domain_library import DOMAINS
from sandmle.synth.domain_library.readings import DEFINED_BY_UNIT, UNIT_BOUNDS, WHOLE_UNITS, Reading
from sandmle.synth.domains import (DomainChoice, banned_tokens, declared_column, fitting_domains, mutate_domain,
                                   name_tokens, named_slots)

MAX_RULE_CHARS = 20_000  # a rule longer than this is no longer a rule a reviewer can read
_SNAKE = {"type": "string", "pattern": "^[a-z][a-z0-9_]{1,39}$"}
_UNIT_BY_KIND = {"categorical": "category"}
_NUMBER = {"type": "number"}
# A numeric column's declared range: typical (about its 5th-95th percentile), hard bounds (null = none), whole or not.
_RANGE = {"typical": {"type": "array", "prefixItems": [_NUMBER, _NUMBER], "minItems": 2, "maxItems": 2},
          "bounds": {"type": "array", "prefixItems": [{"type": ["number", "null"]}] * 2, "minItems": 2, "maxItems": 2},
          "whole": {"type": "boolean"}}
_LEVELS = {"levels": {"type": "array", "items": _SNAKE, "minItems": 2, "uniqueItems": True}}


def dna_summary(dna) -> dict:
    """What the domain stage may know about a seed: its structure, rounded, without a single name or row."""
    slots = named_slots(dna)
    columns = []
    for index, (kind, feature) in enumerate(zip(slots, [f for f in dna.features if f.kind != "pixel"]), start=1):
        column = {"slot": index, "kind": kind, "missing_rate": round(feature.missing_rate, 3)}
        if feature.kind == "numeric":
            column |= {"skewness": round(feature.skewness, 2), "heavy_tailed": feature.heavy_tailed,
                       "modes": feature.n_modes, "non_negative": feature.bounded}
        elif feature.kind == "categorical":
            column["categories"] = feature.n_categories
        elif feature.kind == "text":
            column["mean_words"] = round(feature.mean_length, 1)
        columns.append(column)
    summary = {"modality": dna.modality, "task_type": dna.task_type, "metric": dna.metric,
               "correlation_strength": round(dna.correlation_strength, 2), "columns": columns}
    if dna.task_type != "regression":
        summary |= {"n_classes": dna.n_classes, "class_balance": [round(share, 3) for share in dna.class_balance]}
    if dna.modality == "image":
        summary["image_shape"] = list(dna.image_shape)
    return summary


def preview_summary(preview: pd.DataFrame) -> list[dict]:
    """Statistics of the generated (synthetic) preview columns the rule may read; pixels collapse into one entry."""
    pixels = [c for c in preview.columns if str(c).startswith("px_")]
    summary = []
    if pixels:
        values = preview[pixels].to_numpy(dtype=float)
        side = int(round(np.sqrt(len(pixels))))
        summary.append({"columns": f"{pixels[0]}..{pixels[-1]}", "kind": "pixel", "grid": f"{side}x{side} row-major",
                        "min": round(float(values.min()), 3), "max": round(float(values.max()), 3)})
    for column in (c for c in preview.columns if c not in pixels):
        values = preview[column]
        if pd.api.types.is_numeric_dtype(values):
            q = values.quantile([0.0, 0.1, 0.5, 0.9, 1.0]).round(4).tolist()
            summary.append({"column": column, "kind": "numeric", "min": q[0], "q10": q[1], "median": q[2], "q90": q[3],
                            "max": q[4], "distinct": int(values.nunique())})
        else:
            text = values.astype(str)
            if text.nunique() <= 30:
                summary.append({"column": column, "kind": "categorical", "levels": sorted(text.unique().tolist())})
            else:
                summary.append({"column": column, "kind": "text",
                                "mean_words": round(float(text.str.split().str.len().mean()), 1)})
    return summary


class _Stage:
    """The conversation loop both stages share; an unusable endpoint is remembered so later tasks skip it at once."""

    stage = ""

    def __init__(self, client: ChatClient, *, attempts: int = 3, temperature: float = 0.7) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        self.client = client
        self.attempts = attempts
        self.temperature = temperature
        self.unavailable = ""

    @property
    def source(self) -> str:
        return f"llm:{self.client.model}"

    def _note(self, log: list, message: str) -> None:
        log.append({"stage": self.stage, "message": message})

    def ask(self, messages: list[dict], *, schema: dict, check: Callable[[dict], list[str]], rng: np.random.Generator,
            log: list) -> dict | None:
        """A candidate that passes the schema and `check`, or None after `attempts` replies (or an unusable endpoint)."""
        if self.unavailable:
            self._note(log, f"LLM endpoint unusable earlier in this run ({self.unavailable}); fell back to the "
                            f"procedural stage")
            return None
        validator = jsonschema.Draft202012Validator(schema)
        instruction = {"role": "user", "content": "Answer with one JSON object only, matching this JSON Schema:\n"
                                                  + json.dumps(schema)}
        conversation = list(messages)
        problems: list[str] = []
        for attempt in range(1, self.attempts + 1):
            try:
                reply = self.client.chat(conversation + [instruction], temperature=self.temperature,
                                         seed=int(rng.integers(2**31)))
            except LLMError as error:
                self.unavailable = str(error)[:200]
                self._note(log, f"LLM endpoint unusable ({self.unavailable}); fell back to the procedural stage")
                return None
            candidate, problem = parse_json_reply(reply.text, validator)
            try:
                problems = [problem] if candidate is None else check(candidate)
            except (KeyError, TypeError, AttributeError, IndexError) as odd:  # a shape the schema let through
                problems = [f"unusable content ({type(odd).__name__}: {str(odd)[:200]})"]
            if not problems:
                self._note(log, f"{self.source} answered on attempt {attempt}; checks passed")
                return candidate
            self._note(log, f"{self.source} attempt {attempt} rejected: {'; '.join(problems)[:500]}")
            conversation += [{"role": "assistant", "content": reply.text[:8000]},
                             {"role": "user", "content": "That reply was not acceptable: " + "; ".join(problems)
                                                         + ". Answer again with the whole corrected JSON object."}]
        self._note(log, f"no acceptable LLM answer after {self.attempts} attempts (last: {'; '.join(problems)[:300]}); "
                        f"fell back to the procedural stage")
        return None


class LLMDomainStage(_Stage):
    """Invents a domain for a DNA over a chat endpoint; same call as `mutate_domain`, which it falls back to."""

    stage = "domain"

    def __call__(self, dna, *, rng: np.random.Generator, seed_names: set[str], log: list) -> DomainChoice:
        slots = named_slots(dna)
        named = [kind for kind in slots if kind != "text"]
        n_classes = 0 if dna.task_type == "regression" else dna.n_classes
        banned = banned_tokens(seed_names)
        examples = fitting_domains(dna)
        example = examples[int(rng.integers(len(examples)))]
        sectors = sorted({d.sector for d in DOMAINS} - {example.sector})
        sector = sectors[int(rng.integers(len(sectors)))]
        schema = self._schema(dna, n_named=len(named), n_classes=n_classes, has_text="text" in slots)

        def check(candidate: dict) -> list[str]:
            return self._problems(candidate, named, n_classes=n_classes, banned=banned, has_text="text" in slots)

        messages = [
            {"role": "system", "content": "You are the domain-mutation agent of a pipeline that builds small synthetic "
                                          "machine-learning competitions. You see only structural statistics of a "
                                          "source dataset, never its rows or names, and you invent a realistic, coherent "
                                          "industry setting that fits them."},
            {"role": "user", "content": self._brief(dna, named, n_classes, sector, example)},
        ]
        candidate = self.ask(messages, schema=schema, check=check, rng=rng, log=log)
        if candidate is None:
            return mutate_domain(dna, rng=rng, seed_names=seed_names, log=log)
        choice = self._choice(candidate, slots, n_classes)
        self._note(log, f"LLM designed domain {choice.domain_id} ({choice.sector}): {choice.title}")
        return choice

    @staticmethod
    def _brief(dna, named: list[str], n_classes: int, sector: str, example) -> str:
        shown = {"domain_id": example.domain_id, "sector": example.sector, "title": example.title,
                 "entity": example.entity, "target_name": example.target_name, "target_unit": example.target_unit,
                 "label_names": list(example.label_names[:n_classes]),
                 "features": [declared_column(n, u) for n, u in example.features[:6]], "context": example.context}
        lines = [
            "Statistics of the source dataset:", json.dumps(dna_summary(dna)),
            f"Suggested sector: {sector} (choose another only if it fits these statistics badly).",
            "Format example (a different domain, shortened; do not copy it): " + json.dumps(shown),
            "Requirements:",
            f"- `features` has exactly {len(named)} entries; entry i names the i-th non-text column slot above, in order.",
            "- units: 'category' for categorical slots, 'count' only for integer slots, otherwise a physical or business "
            "unit such as °C, kW, EUR, %, mm or days.",
            "- every numeric column declares where real readings lie: `typical` [low, high] (about its 5th-95th "
            "percentile in real data), `bounds` [low, high] that no reading can cross (null where the unit sets none: 0 "
            "for counts, durations and masses, 0-100 for %, 0-1 for fractions, physical limits), and `whole` (true "
            "for whole numbers); every categorical column names its `levels` (snake_case, commonest first).",
            "- every name is snake_case and distinct; `context` is a competition host's overview paragraph (why the "
            "prediction matters to whom), 2 to 5 sentences.",
        ]
        if n_classes:
            lines.append(f"- `label_names` has exactly {n_classes} distinct snake_case classes, the normal or negative "
                         f"class first.")
        else:
            lines.append("- regression: `target_unit` is the unit of the predicted quantity.")
        if dna.modality == "image":
            lines.append("- `image_subject` says what one greyscale picture shows.")
        if "text" in named_slots(dna):
            lines.append("- `text_field` names the free-text column; `vocabulary` maps each class name (each topic, for "
                         "regression) to at least 3 short phrases typical of it, plus 'common' for neutral phrases.")
        return "\n".join(lines)

    @staticmethod
    def _schema(dna, *, n_named: int, n_classes: int, has_text: bool) -> dict:
        text = {"type": "string", "minLength": 2, "maxLength": 120}
        properties = {
            "domain_id": _SNAKE, "sector": _SNAKE, "title": {"type": "string", "minLength": 5, "maxLength": 120},
            "entity": {"type": "string", "minLength": 2, "maxLength": 60}, "target_name": _SNAKE,
            "target_unit": {"type": "string", "maxLength": 20, "minLength": 0 if n_classes else 1},
            "features": {"type": "array", "minItems": n_named, "maxItems": n_named,
                         "prefixItems": [_feature_schema(kind) for kind in named_slots(dna) if kind != "text"]},
            "context": {"type": "string", "minLength": 120, "maxLength": 1500},
        }
        required = ["domain_id", "sector", "title", "entity", "target_name", "target_unit", "features", "context"]
        if n_classes:
            properties["label_names"] = {"type": "array", "items": _SNAKE, "minItems": n_classes,
                                         "maxItems": n_classes, "uniqueItems": True}
            required.append("label_names")
        if dna.modality == "image":
            properties["image_subject"] = {"type": "string", "minLength": 10, "maxLength": 200}
            required.append("image_subject")
        if has_text:
            properties["text_field"] = _SNAKE
            properties["vocabulary"] = {"type": "object", "minProperties": 1,
                                        "additionalProperties": {"type": "array", "items": text, "minItems": 3}}
            required += ["text_field", "vocabulary"]
        return {"type": "object", "required": required, "properties": properties}

    @staticmethod
    def _problems(candidate: dict, named: list[str], *, n_classes: int, banned: set[str], has_text: bool) -> list[str]:
        problems = []
        features = candidate["features"]
        names = [f["name"] for f in features] + [candidate["target_name"]] + (
            [candidate["text_field"]] if has_text else [])
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            problems.append(f"column names must be distinct (repeated: {', '.join(repeated)})")
        labels = candidate.get("label_names", [])
        for name in names + labels:
            if name_tokens(name) & banned:
                problems.append(f"the name {name!r} is not allowed (it repeats a word of the source dataset); "
                                f"choose another")
        for index, (kind, feature) in enumerate(zip(named, features), start=1):
            unit = feature["unit"].strip()
            if kind == "categorical" and unit != "category":
                problems.append(f"slot {index} is categorical: its unit must be 'category', not {unit!r}")
            elif kind != "categorical" and unit == "category":
                problems.append(f"slot {index} is numeric: 'category' is not a unit for it")
            elif kind == "numeric" and unit == "count":
                problems.append(f"slot {index} holds non-integer values: 'count' does not fit it")
            problems += [f"slot {index} ({feature['name']}): {problem}" for problem in _declared_problems(feature)
                         if kind != "categorical" or unit == "category"]
        if has_text and n_classes:
            vocabulary = candidate["vocabulary"]
            missing = [label for label in labels if len(vocabulary.get(label, [])) < 3]
            if missing:
                problems.append(f"vocabulary needs at least 3 phrases for each class (missing: {', '.join(missing)})")
        return problems

    def _choice(self, candidate: dict, slots: list[str], n_classes: int) -> DomainChoice:
        named = iter(candidate["features"])
        features = []
        for index, kind in enumerate(slots):
            if kind == "text":
                name = candidate["text_field"] if index == slots.index("text") else f"{candidate['text_field']}_{index + 1}"
                features.append({"name": name, "unit": "text"})
            else:
                feature = next(named)
                features.append(_declared(feature))
        vocabulary = {key: [str(p) for p in phrases] for key, phrases in candidate.get("vocabulary", {}).items()}
        return DomainChoice(candidate["domain_id"], candidate["sector"], candidate["title"].strip(),
                            candidate["entity"].strip(), candidate["target_name"], list(candidate.get("label_names", [])),
                            candidate["target_unit"].strip(), features, " ".join(candidate["context"].split()),
                            candidate.get("image_subject", ""), candidate.get("text_field", ""), vocabulary, self.source)


def _feature_schema(kind: str) -> dict:
    """A named column of the domain reply: a categorical slot names its levels, any other declares its range."""
    extra, required = (_LEVELS, ["levels"]) if kind == "categorical" else (_RANGE, list(_RANGE))
    return {"type": "object", "required": ["name", "unit", *required],
            "properties": {"name": _SNAKE, "unit": {"type": "string", "minLength": 1, "maxLength": 20}} | extra}


def _declared(feature: dict) -> dict:
    """The column as a DomainChoice records it: name, unit and its levels or its declared range."""
    unit = feature["unit"].strip()
    if unit == "category":
        return {"name": feature["name"], "unit": unit, "levels": [str(level) for level in feature["levels"]]}
    low, high = feature["bounds"]
    reading = Reading(tuple(float(v) for v in feature["typical"]), (-np.inf if low is None else float(low),
                                                                    np.inf if high is None else float(high)),
                      bool(feature["whole"]) or unit in WHOLE_UNITS)
    return {"name": feature["name"], "unit": unit} | reading.to_dict()


def _declared_problems(feature: dict) -> list[str]:
    """What is wrong with a column's declared range: an empty or inverted range, a typical range the bounds cut, or
    bounds wider than the unit allows (a % beyond 0-100, a negative count)."""
    unit = feature["unit"].strip()
    if unit == "category":
        return [] if len(feature.get("levels", [])) >= 2 else ["a categorical column needs at least two `levels`"]
    if not all(key in feature for key in ("typical", "bounds", "whole")):
        return ["a numeric column needs `typical`, `bounds` and `whole`"]
    (low, high), (lowest, highest) = feature["typical"], feature["bounds"]
    lowest = -np.inf if lowest is None else lowest
    highest = np.inf if highest is None else highest
    problems = []
    if not low < high:
        problems.append(f"typical range {low}..{high} is empty")
    if not (lowest <= low and high <= highest):
        problems.append(f"typical range {low}..{high} leaves the bounds {lowest}..{highest}")
    unit_low, unit_high = UNIT_BOUNDS[unit] if unit in DEFINED_BY_UNIT else (-np.inf, np.inf)
    if lowest < unit_low or highest > unit_high:
        problems.append(f"bounds {lowest}..{highest} go beyond what {unit!r} allows ({unit_low}..{unit_high})")
    if unit in WHOLE_UNITS and not feature["whole"]:
        problems.append(f"{unit!r} values are whole: set whole to true")
    return problems


class LLMRuleStage(_Stage):
    """Designs the hidden rule over a chat endpoint; same call as the procedural `rules.design_rule`, plus the log."""

    stage = "rule"

    def __call__(self, family: str, preview: pd.DataFrame, *, n_classes: int, rng: np.random.Generator,
                 log: list) -> dict:
        # The family stays the one drawn: generation may plant its pattern (images) and the draw keeps families spread.
        n_classes = 0 if rules.get_family(family).task in rules.VALUE_TASKS else max(n_classes, 2)
        example = rules.design_rule(family, preview, n_classes=n_classes, rng=np.random.default_rng(0))
        schema = {"type": "object", "required": ["family", "features"],
                  "properties": {"family": {"const": family},
                                 "features": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                              "uniqueItems": True}}}
        messages = [
            {"role": "system", "content": "You design the hidden rule of a synthetic machine-learning task: a "
                                          "deterministic map from some feature columns to the clean label, which "
                                          "competitors must discover from data. Use a subset of the columns (the rest "
                                          "are distractors), keep it plausible for the columns' meaning, and make "
                                          "every class common enough to learn."},
            {"role": "user", "content": self._brief(family, example, preview, n_classes)},
        ]
        candidate = self.ask(messages, schema=schema, check=lambda rule: rule_problems(rule, preview, n_classes=n_classes),
                             rng=rng, log=log)
        if candidate is None:
            return rules.design_rule(family, preview, n_classes=n_classes, rng=rng)
        return candidate | {"source": self.source}

    @staticmethod
    def _brief(family: str, example: dict, preview: pd.DataFrame, n_classes: int) -> str:
        target = (f"classification into {n_classes} classes, labelled 0..{n_classes - 1}" if n_classes
                  else "regression: the rule returns a real value")
        share = f" Every class must cover at least {100 * rules.MIN_SHARE_RATIO / n_classes:.1f}% of rows." if n_classes else ""
        return "\n".join([
            "Columns of the generated data (statistics of a preview sample):", json.dumps(preview_summary(preview)),
            f"Task: {target}.{share}",
            f"Family: {family}.",
            "A valid rule of this family, designed at random on these columns: " + json.dumps(example),
            "In words: " + rules.describe_rule(example, label_names=[f"class {k}" for k in range(max(n_classes, 2))]),
            "Write a new rule with the same JSON keys and structure but your own choice of columns, thresholds, "
            "weights and labels; `features` lists exactly the columns the rule reads.",
        ])


def rule_problems(rule: dict, preview: pd.DataFrame, *, n_classes: int) -> list[str]:
    """Execute a candidate rule on the preview and say what is wrong with it (empty when it is usable).

    n_classes is 0 for regression. Checks: it runs, it is deterministic through JSON, it reads only the columns it
    lists and leaves a distractor, every class is common enough (classification) or the values vary (regression).
    """
    text = json.dumps(rule)
    if len(text) > MAX_RULE_CHARS:
        return [f"the rule is {len(text)} characters long; keep it under {MAX_RULE_CHARS}"]
    tabular = [c for c in preview.columns if not str(c).startswith("px_")]
    if tabular:
        unknown = [c for c in rule["features"] if c not in tabular]
        if unknown:
            return [f"unknown columns in features: {', '.join(unknown)}"]
        if len(tabular) > 1 and len(set(rule["features"])) >= len(tabular):
            return ["the rule reads every column; leave at least one as a distractor"]
    try:
        labels = np.asarray(rules.apply_rule(rule, preview))
        again = np.asarray(rules.apply_rule(json.loads(text), preview))
        rules.describe_rule(rule, label_names=[f"class {k}" for k in range(max(n_classes, 2))])
    except Exception as error:  # any failure of an untrusted rule is a problem to report back, not a crash
        return [f"executing the rule failed: {type(error).__name__}: {str(error)[:200]}"]
    if labels.shape != (len(preview),) or not np.array_equal(labels, again, equal_nan=labels.dtype.kind == "f"):
        return ["the rule must give exactly one deterministic value per row"]
    problems = _outcome_problems(rule, labels, n_classes)
    if problems:
        return problems
    return _unlisted_columns(rule, preview, labels, tabular)


def _outcome_problems(rule: dict, labels: np.ndarray, n_classes: int) -> list[str]:
    if not n_classes:
        if labels.dtype.kind not in "iuf" or not np.all(np.isfinite(labels.astype(float))):
            return ["the rule must give finite numbers"]
        top_share = pd.Series(labels).value_counts(normalize=True).iloc[0]
        if np.std(labels) == 0 or top_share > 0.5:
            return [f"the rule's values barely vary ({top_share:.0%} of rows share one value)"]
        return []
    k = rule.get("n_classes", n_classes)
    if not isinstance(k, int) or not 2 <= k <= n_classes:
        return [f"n_classes must be an integer between 2 and {n_classes}"]
    if labels.dtype.kind not in "iu" or labels.min() < 0 or labels.max() >= k:
        return [f"the rule must give class labels 0..{k - 1}"]
    shares = rules.class_shares(labels, k)
    floor = rules.MIN_SHARE_RATIO / k
    starved = [f"{label} ({share:.1%})" for label, share in enumerate(shares) if share < floor]
    if starved:
        return [f"classes too rare on the preview rows: {', '.join(starved)}; each needs at least {floor:.1%}"]
    return []


def _unlisted_columns(rule: dict, preview: pd.DataFrame, labels: np.ndarray, tabular: list[str]) -> list[str]:
    """Shuffle each column the rule does not list: if the labels move, the rule reads a column it hides."""
    shuffler = np.random.default_rng(0)
    hidden = []
    for column in (c for c in tabular if c not in rule["features"]):
        shuffled = preview.copy()
        shuffled[column] = shuffler.permutation(shuffled[column].to_numpy())
        try:
            moved = np.asarray(rules.apply_rule(rule, shuffled))
        except Exception as error:  # an untrusted rule that breaks on reordered values reports, it does not crash
            return [f"executing the rule failed on shuffled rows: {type(error).__name__}: {str(error)[:200]}"]
        if not np.array_equal(moved, labels, equal_nan=labels.dtype.kind == "f"):
            hidden.append(column)
    return [f"the rule reads columns missing from features: {', '.join(hidden)}"] if hidden else []


def llm_stages(client: ChatClient | None, *, attempts: int = 3) -> tuple[LLMDomainStage | None, LLMRuleStage | None]:
    """The LLM-backed (domain, rule) stages over one client, or (None, None) for the procedural pipeline."""
    if client is None:
        return None, None
    return LLMDomainStage(client, attempts=attempts), LLMRuleStage(client, attempts=attempts)
