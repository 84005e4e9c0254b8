"""Text generation: free-text notes in a sector's vocabulary that plant key phrases and lexicon words, at the DNA's length.

Each note mixes sentences that carry a key phrase (sometimes negated: "no oil leak was seen"), sentences that carry
words of the sector's lexicons (how many varies from note to note; some negated: "the rotor was not worn"), and neutral filler up to a length drawn around
the seed's mean words per value. The text rules (sandmle.synth.rules.text) read notes with `tokenize`,
`phrase_count` and `lexicon_count` below, so generation and rules agree on what a word and a phrase are.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from sandmle.synth.text_corpus import NEGATIONS, Vocabulary, vocabulary_for

TOKEN = re.compile(r"[a-z0-9']+")
STATES = ("was checked", "was logged", "was reviewed", "was photographed", "was measured", "was inspected",
          "was recorded", "was discussed")
TIMES = ("this morning", "after the shift", "on site", "before noon", "during the visit", "yesterday", "on arrival",
         "at the team meeting", "by the evening team", "once more")
SHORT_FILLERS = ("Logged again.", "Noted.", "Photos attached.", "See log.", "Usual procedure applies.")
NEGATION_SHARE = 0.3
# What the generator planted, recorded in the generated frame's attrs for rule design (sandmle.synth.rules.text).
PHRASE_GROUPS_ATTR = "text_phrase_groups"  # {column: [[phrases of class 0], [phrases of class 1], ...]}
CUES_ATTR = "text_cues"  # {column: [phrases]}: planted phrases not tied to any class
LEXICONS_ATTR = "text_lexicons"  # {column: {lexicon name: [words]}}


def tokenize(text) -> list[str]:
    """Lower-case words and numbers; anything that is not text (a missing value) has no words."""
    return TOKEN.findall(text.lower()) if isinstance(text, str) else []


def phrase_count(tokens: list[str], phrase: str) -> int:
    """Occurrences of `phrase` in `tokens` not negated by the word just before it (no, without, not)."""
    words = phrase.split()
    width = len(words)
    return sum(1 for start in range(len(tokens) - width + 1)
               if tokens[start:start + width] == words and (start == 0 or tokens[start - 1] not in NEGATIONS))


def lexicon_count(tokens: list[str], terms) -> int:
    """Mentions of a lexicon's terms (words or phrases) not negated by the word just before them."""
    words = {term for term in terms if " " not in term}
    count = sum(token in words and (index == 0 or tokens[index - 1] not in NEGATIONS) for index, token in enumerate(tokens))
    return count + sum(phrase_count(tokens, term) for term in terms if " " in term)


def _pick(options, rng: np.random.Generator):
    # Indexing by one integer draw: rng.choice would turn the options into an array on every call.
    return options[int(rng.integers(len(options)))]


def _cue_sentence(vocabulary: Vocabulary, cue: str, rng: np.random.Generator) -> str:
    subject, time = _pick(vocabulary.subjects, rng), _pick(TIMES, rng)
    if vocabulary.clause_cues:  # a domain's phrases read as sentences of their own
        negated = rng.random() < NEGATION_SHARE and tokenize(cue)[0] not in NEGATIONS
        return f"not {cue}." if negated else _pick((f"{cue}.", f"{cue}, {time}.", f"also {cue}."), rng)
    if rng.random() < NEGATION_SHARE:
        templates = (f"no {cue} was seen {time}.", f"{subject} was inspected without {cue}.")
    else:
        templates = (f"{vocabulary.writer} noted {cue} near {subject}.", f"{subject} showed {cue} {time}.",
                     f"there was {cue} {time}.", f"reported {cue} at {subject}.")
    return _pick(templates, rng)


def _lexicon_sentence(vocabulary: Vocabulary, words: list[str], rng: np.random.Generator) -> str:
    subject = _pick(vocabulary.subjects, rng)
    if len(words) == 1:
        return f"{subject} looked {words[0]}."
    return f"{subject} seemed {', '.join(words[:-1])} and {words[-1]}."


def _filler_sentence(vocabulary: Vocabulary, rng: np.random.Generator) -> str:
    if vocabulary.fillers and rng.random() < 0.4:
        return f"{_pick(vocabulary.fillers, rng)}."
    return f"{_pick(vocabulary.subjects, rng)} {_pick(STATES, rng)} {_pick(TIMES, rng)}."


def _note(vocabulary: Vocabulary, length: int, rng: np.random.Generator) -> str:
    cues = [_cue_sentence(vocabulary, _pick(vocabulary.cues, rng), rng)
            for _ in range(int(rng.poisson(np.clip(length / 7, 1.0, 5.0))))]
    described = []
    for lexicon in vocabulary.lexicons.values():
        count = int(rng.poisson(rng.gamma(1.0) * length / 14))
        groups: list[list[str]] = []  # up to three words a sentence, never one word twice in a sentence
        for word in (str(word) for word in rng.choice(lexicon, size=count)):
            if rng.random() < NEGATION_SHARE / 2:  # "the gearbox was not worn": seen by a bag of words, not counted
                described.append(f"{_pick(vocabulary.subjects, rng)} was not {word}.")
                continue
            group = next((g for g in groups if len(g) < 3 and word not in g), None)
            if group is None:
                groups.append(group := [])
            group.append(word)
        described += [_lexicon_sentence(vocabulary, group, rng) for group in groups]
    sentences, words = [], 0
    # Key phrases first, then lexicon words, in the order drawn; what does not fit the drawn length is left out.
    for sentence in cues + [described[i] for i in rng.permutation(len(described))]:
        size = len(sentence.split())
        if not sentences or words + size <= length + 1:
            sentences.append(sentence)
            words += size
    while words < length - 3 or not sentences:
        sentences.append(_filler_sentence(vocabulary, rng))
        words += len(sentences[-1].split())
    if words < length - 1:
        sentences.append(_pick(SHORT_FILLERS, rng))
    order = rng.permutation(len(sentences))
    return " ".join(sentences[i][0].upper() + sentences[i][1:] for i in order)


def sample_texts(vocabulary: Vocabulary, *, n_rows: int, mean_length: float, rng: np.random.Generator) -> list[str]:
    """`n_rows` notes whose word counts average about `mean_length` (at least a short sentence each)."""
    lengths = np.maximum(3, np.round(max(mean_length, 3.0) * rng.lognormal(-0.06, 0.35, size=n_rows))).astype(int)
    return [_note(vocabulary, int(length), rng) for length in lengths]


def describe_text_column(values) -> str:
    """How description.md presents a text column: free text and its typical length."""
    words = [len(str(value).split()) for value in values if isinstance(value, str)]
    return f"free text: a short note of about {int(round(np.median(words))) if words else 0} words"


def _normalised(phrases) -> list[str]:
    return [" ".join(tokenize(phrase)) for phrase in phrases if tokenize(phrase)]


def domain_vocabulary(choice) -> tuple[Vocabulary, list[list[str]], dict[str, list[str]]]:
    """The vocabulary for a domain choice: its sector's corpus, with the domain's own phrases when it has some.

    A domain's vocabulary maps its label names (topics, for a regression domain) to phrases, and "common" to phrases
    that say nothing. Returns the vocabulary, the key phrases grouped by class (when two or more classes have some;
    else empty) and the phrase lexicons by topic (regression domains; else empty).
    """
    corpus = vocabulary_for(getattr(choice, "sector", ""))
    phrases = getattr(choice, "vocabulary", None) or {}
    labels = list(getattr(choice, "label_names", []) or [])
    groups = [_normalised(phrases.get(label, ())) for label in labels]
    if sum(bool(group) for group in groups) < 2:
        groups = []
    topics = {} if labels else {key: _normalised(values) for key, values in phrases.items() if key != "common" and values}
    own = sorted({p for key, values in phrases.items() if key != "common" and (key in labels or not labels) for p in values})
    fillers = tuple(phrases.get("common", ())) or corpus.fillers
    names = tuple(name for name in (getattr(choice, "text_field", "") or "", *corpus.names) if name)
    if not own:
        return replace(corpus, fillers=fillers, names=names), [], {}
    return replace(corpus, cues=tuple(own), fillers=fillers, names=names, clause_cues=True), groups, topics


def sample_text_column(choice, column: str, *, n_rows: int, mean_length: float, rng: np.random.Generator) -> tuple[list[str], dict]:
    """Notes for one text column of a domain, and the attrs that tell rule design what was planted in it."""
    vocabulary, groups, topics = domain_vocabulary(choice)
    texts = sample_texts(vocabulary, n_rows=n_rows, mean_length=mean_length, rng=rng)
    planted = {PHRASE_GROUPS_ATTR: {column: groups}} if groups else {CUES_ATTR: {column: _normalised(vocabulary.cues)}}
    lexicons = {name: list(words) for name, words in vocabulary.lexicons.items()} | topics
    planted[LEXICONS_ATTR] = {column: lexicons}
    return texts, planted
