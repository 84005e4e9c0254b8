"""Hidden rules over free text: key phrases (the first one a note mentions decides) and lexicon counts (thresholds).

Both read one text column through the tokenizer of sandmle.synth.texts, so a rule re-executes from the text alone.
Rules are designed on a preview frame whose attrs say what the generator planted in each text column: phrases
grouped by class when the domain has them (`PHRASE_GROUPS_ATTR`), a pool of phrases otherwise (`CUES_ATTR`), and
word lexicons (`LEXICONS_ATTR`). Without those notes they fall back to the phrases and lexicons of the built-in sector corpus that
occur in the text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sandmle.synth.columns import columns_of_kind
from sandmle.synth.rules.base import RuleDesignError, RuleFamily, number
from sandmle.synth.rules.counts import balanced_cuts, band_labels, describe_bands
from sandmle.synth.text_corpus import NEGATIONS, all_vocabularies
from sandmle.synth.texts import CUES_ATTR, LEXICONS_ATTR, PHRASE_GROUPS_ATTR, lexicon_count, phrase_count, tokenize

DESIGN_TRIES = 12


def _text_column(features: pd.DataFrame, rng: np.random.Generator) -> str:
    columns = columns_of_kind(features, "text")
    if not columns:
        raise RuleDesignError("needs a text column; found none")
    return str(columns[int(rng.integers(len(columns)))])


# --- key phrases -------------------------------------------------------------------------------------------------

def _first_phrase_labels(texts: pd.Series, phrases: list[list[str]], default: int) -> np.ndarray:
    owners = [(phrase.split(), label) for label, group in enumerate(phrases) for phrase in group]
    labels = np.full(len(texts), default, dtype=int)
    for row, text in enumerate(texts):
        tokens = tokenize(text)
        first = None  # (position, label) of the earliest mention that is not negated
        for words, label in owners:
            for start in range(len(tokens) - len(words) + 1):
                if first is not None and start >= first[0]:
                    break
                if tokens[start:start + len(words)] == words and (start == 0 or tokens[start - 1] not in NEGATIONS):
                    first = (start, label)
                    break
        if first is not None:
            labels[row] = first[1]
    return labels


def _candidate_phrases(features: pd.DataFrame, column: str) -> tuple[list[list[str]], list[str]]:
    """Phrase groups lined up with the classes (from the domain), or else a flat pool of phrases to deal out."""
    aligned = features.attrs.get(PHRASE_GROUPS_ATTR, {}).get(column)
    if aligned:
        return [list(group) for group in aligned], []
    pool = features.attrs.get(CUES_ATTR, {}).get(column)
    if pool:
        return [], sorted(pool)
    tokens = [tokenize(text) for text in features[column]]
    return [], sorted({cue for vocabulary in all_vocabularies() for cue in vocabulary.cues
                       if sum(phrase_count(t, cue) > 0 for t in tokens) >= 0.02 * len(tokens)})


def _deal_phrases(groups: list[list[str]], pool: list[str], n_classes: int, rng: np.random.Generator) -> list[list[str]]:
    """Phrases for every class: most of each class's own group, or a few from the pool. Every class has some, so
    notes that mention several classes' phrases are decided by their order, which a bag of words cannot see."""
    if groups:
        return [sorted(rng.choice(g, size=int(rng.integers((len(g) + 1) // 2, len(g) + 1)), replace=False).tolist())
                if g else [] for g in groups[:n_classes]]
    shuffled = [str(p) for p in rng.permutation(pool)]
    size = max(1, min(3, len(shuffled) // n_classes))
    return [sorted(shuffled[k * size:(k + 1) * size]) for k in range(n_classes)]


def design_key_phrases(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    """Deal key phrases to the classes; the registry redraws the design until every class holds a fair share."""
    column = _text_column(features, rng)
    groups, pool = _candidate_phrases(features, column)
    available = len([g for g in groups if g]) if groups else len(pool)
    if available < 2:
        raise RuleDesignError(f"text column {column!r} holds too few key phrases for a phrase rule")
    n_classes = max(2, min(n_classes, len(groups) if groups else len(pool), 5))
    phrases = _deal_phrases(groups, pool, n_classes, rng)
    if not all(phrases[1:]):  # a class without a phrase of its own (but the default) would never be given
        phrases = _deal_phrases([], sorted({p for g in groups for p in g}) or pool, n_classes, rng)
    return {"family": "key_phrases", "features": [column], "column": column, "phrases": phrases, "default": 0,
            "n_classes": n_classes}


def apply_key_phrases(rule: dict, features: pd.DataFrame) -> np.ndarray:
    return _first_phrase_labels(features[rule["column"]], rule["phrases"], rule["default"])


def describe_key_phrases(rule: dict, label_names: list[str]) -> str:
    parts = [f"{', '.join(repr(p) for p in group)} -> {label_names[label]}"
             for label, group in enumerate(rule["phrases"]) if group]
    return (f"The first key phrase that {rule['column']} mentions decides the label ({'; '.join(parts)}); a mention right "
            f"after 'no', 'not' or 'without' does not count. Text with none of them is {label_names[rule['default']]}.")


# --- lexicon counts ----------------------------------------------------------------------------------------------

def _candidate_lexicons(features: pd.DataFrame, column: str) -> dict[str, list[str]]:
    planted = features.attrs.get(LEXICONS_ATTR, {}).get(column)
    if planted:
        return {name: list(words) for name, words in planted.items()}
    tokens = [tokenize(text) for text in features[column]]
    found = {}
    for vocabulary in all_vocabularies():
        for name, words in vocabulary.lexicons.items():
            if np.std([lexicon_count(t, words) for t in tokens]) > 0:
                found[f"{vocabulary.sector}_{name}"] = list(words)
    return found


def lexicon_scores(texts: pd.Series, plus: list[str], minus: list[str]) -> np.ndarray:
    scores = []
    for text in texts:
        tokens = tokenize(text)
        scores.append(lexicon_count(tokens, plus) - (lexicon_count(tokens, minus) if minus else 0))
    return np.asarray(scores, dtype=float)


def design_lexicon_counts(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    column = _text_column(features, rng)
    lexicons = _candidate_lexicons(features, column)
    if not lexicons:
        raise RuleDesignError(f"text column {column!r} holds no lexicon words to count")
    names = sorted(lexicons)
    for _ in range(DESIGN_TRIES):
        chosen = rng.choice(names, size=min(2, len(names)), replace=False).tolist()
        plus, minus = chosen[0], (chosen[1] if len(chosen) > 1 and rng.random() < 0.6 else None)
        scores = lexicon_scores(features[column], lexicons[plus], lexicons[minus] if minus else [])
        cuts = balanced_cuts(scores, max(2, min(n_classes, 4)))
        if cuts:
            return {"family": "lexicon_counts", "features": [column], "column": column, "plus_name": plus,
                    "plus": sorted(lexicons[plus]), "minus_name": minus or "", "minus": sorted(lexicons[minus]) if minus else [],
                    "cuts": cuts, "n_classes": len(cuts) + 1}
    raise RuleDesignError(f"no balanced count rule over {column!r} in {DESIGN_TRIES} tries")


def apply_lexicon_counts(rule: dict, features: pd.DataFrame) -> np.ndarray:
    return band_labels(lexicon_scores(features[rule["column"]], rule["plus"], rule["minus"]), rule["cuts"])


def describe_lexicon_counts(rule: dict, label_names: list[str]) -> str:
    score = f"the number of {rule['plus_name']} words ({', '.join(rule['plus'])}) in {rule['column']}"
    if rule["minus"]:
        score += f" minus the number of {rule['minus_name']} words ({', '.join(rule['minus'])})"
    bands = describe_bands(rule["cuts"], label_names, lowest=None if rule["minus"] else 0)
    return f"Score = {score}, a word right after 'no', 'not' or 'without' not counted; {bands}."


# --- lexicon score (regression) ----------------------------------------------------------------------------------

def design_lexicon_score(features: pd.DataFrame, n_classes: int, rng: np.random.Generator) -> dict:
    column = _text_column(features, rng)
    lexicons = _candidate_lexicons(features, column)
    if not lexicons:
        raise RuleDesignError(f"text column {column!r} holds no lexicon words to count")
    names = sorted(rng.choice(sorted(lexicons), size=min(len(lexicons), int(rng.integers(1, 4))), replace=False).tolist())
    return {"family": "lexicon_score", "features": [column], "column": column, "intercept": number(rng.uniform(20, 80)),
            "terms": [{"lexicon": name, "words": sorted(lexicons[name]), "weight": number(rng.choice([-1, 1]) * rng.uniform(2, 10))}
                      for name in names]}


def apply_lexicon_score(rule: dict, features: pd.DataFrame) -> np.ndarray:
    value = np.full(len(features), float(rule["intercept"]))
    for term in rule["terms"]:
        value = value + term["weight"] * lexicon_scores(features[rule["column"]], term["words"], [])
    return value


def describe_lexicon_score(rule: dict, label_names: list[str]) -> str:
    terms = " ".join(f"{t['weight']:+.3g} x mentions of {t['lexicon']} terms ({', '.join(t['words'])})" for t in rule["terms"])
    return (f"target = {rule['intercept']:.4g} {terms}, counted in {rule['column']} (a term right after 'no', 'not' or "
            f"'without' does not count).")


FAMILIES = {
    family.name: family for family in (
        RuleFamily("key_phrases", "text", design_key_phrases, apply_key_phrases, describe_key_phrases,
                   feature_kinds=("text",)),
        RuleFamily("lexicon_counts", "text", design_lexicon_counts, apply_lexicon_counts, describe_lexicon_counts,
                   feature_kinds=("text",)),
        RuleFamily("lexicon_score", "text_regression", design_lexicon_score, apply_lexicon_score, describe_lexicon_score,
                   feature_kinds=("text",)),
    )
}
