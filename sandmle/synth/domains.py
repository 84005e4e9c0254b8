"""Domain mutation: choose a library domain that fits a seed's DNA and name its columns, never reusing a seed name."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import numpy as np

from sandmle.synth.domain_library import DOMAINS, Domain
from sandmle.synth.domain_library.readings import GENERIC_READING, LEVELS, reading_for

__all__ = ["DOMAINS", "Domain", "DomainChoice", "fitting_domains", "mutate_domain", "name_tokens", "named_slots"]

# When a DNA has more columns than the domain names, columns repeat as aggregates of the same reading and unit.
_REPEAT_SUFFIXES = ("peak", "low", "spread", "lagged", "site_b", "site_c", "site_d", "site_e")


@dataclass
class DomainChoice:
    """The mutated domain of one task, as recorded in its TaskSpec (see `Domain` for the meaning of the fields).

    features lines up with the DNA's non-pixel features, in order: {name, unit}, plus the declared range of a numeric
    column (`readings.Reading.to_dict`: typical, bounds, whole) or the level names of a categorical one (levels);
    text columns have unit "text".
    source says who chose it: "library" or "llm:<model>".
    """

    domain_id: str
    sector: str
    title: str
    entity: str
    target_name: str
    label_names: list[str]
    target_unit: str
    features: list[dict] = field(default_factory=list)  # {name, unit, typical, bounds, whole | levels}
    context: str = ""
    image_subject: str = ""
    text_field: str = ""
    vocabulary: dict[str, list[str]] = field(default_factory=dict)
    source: str = "library"

    def to_dict(self) -> dict:
        return asdict(self)


def name_tokens(name: str) -> set[str]:
    """The words of a name that could give a seed away (short tokens such as 'id' or 's1' are too common to count)."""
    return {token for token in re.split(r"[\s_\-./()]+", str(name).lower()) if len(token) > 2}


def banned_tokens(seed_names: set[str]) -> set[str]:
    return set().union(*(name_tokens(name) for name in seed_names)) if seed_names else set()


def named_slots(dna) -> list[str]:
    """The kind of each DNA feature that gets a column name: pixels make one image column and need none."""
    if dna.modality == "image":
        return []
    return [feature.kind if feature.kind != "numeric" or not feature.integer else "integer"
            for feature in dna.features if feature.kind != "pixel"]


def fitting_domains(dna) -> list[Domain]:
    """Library domains of the DNA's task type that support its modality (tabular ones when none does)."""
    regression = dna.task_type == "regression"
    same_task = [d for d in DOMAINS if d.is_regression == regression]
    return [d for d in same_task if dna.modality in d.modalities] or [d for d in same_task if "tabular" in d.modalities]


def _clashes(domain: Domain, banned: set[str], n_classes: int) -> bool:
    names = [domain.target_name, *domain.label_names[:n_classes]]
    return any(name_tokens(name) & banned for name in names)


def _usable_features(domain: Domain, banned: set[str]) -> list[tuple[str, str]]:
    return [(name, unit) for name, unit in domain.features if not name_tokens(name) & banned]


def declared_column(name: str, unit: str, base: str | None = None) -> dict:
    """A named column with what the library declares of it: its range, or its level names; `base` is the library
    column a repeated aggregate (`<base>_peak`) reads like."""
    base = base or name
    if unit == "category":
        return {"name": name, "unit": unit, "levels": list(LEVELS.get(base, ()))}
    return {"name": name, "unit": unit} | (reading_for(base, unit) or GENERIC_READING).to_dict()


def _assign_names(slots: list[str], domain: Domain, banned: set[str]) -> list[dict]:
    """Give each slot a domain column whose unit suits its kind: counts for integers, coded categories for categoricals."""
    pool = [(name, unit, name) for name, unit in _usable_features(domain, banned)]
    numeric_slots = sum(kind in ("numeric", "integer") for kind in slots)
    for suffix in _REPEAT_SUFFIXES:  # numeric slots take no coded category, so they count on their own
        if (len(pool) >= len(slots) and sum(unit != "category" for _, unit, _ in pool) >= numeric_slots) \
                or suffix in banned:
            continue
        pool += [(f"{name}_{suffix}", unit, name) for name, unit in _usable_features(domain, banned)]
    text_field = domain.text_field if domain.text_field and not name_tokens(domain.text_field) & banned else "free_text"
    suits = {"integer": lambda unit: unit == "count", "categorical": lambda unit: unit == "category",
             "numeric": lambda unit: unit not in ("count", "category")}
    used: set[str] = set()
    named = []
    for index, kind in enumerate(slots):
        if kind == "text":
            name = text_field if text_field not in used else f"{text_field}_{index + 1}"
            named.append({"name": name, "unit": "text"})
            used.add(name)
            continue
        free = [item for item in pool if item[0] not in used]
        fits = suits.get(kind, suits["numeric"])
        # a numeric slot never takes a coded category; a categorical one may take a reading (it shows a few values)
        fallback = [item for item in free if kind == "categorical" or item[1] != "category"]
        best = next((item for item in free if fits(item[1])), None) or next(iter(fallback), None)
        if best is None:  # a DNA wider than every repetition of the domain's columns
            name = f"{domain.entity.split()[0].split('-')[0]}_reading_{index + 1}"
            best = (name, "units", name)
        named.append(declared_column(*best))
        used.add(best[0])
    return named


def _labels(domain: Domain, n_classes: int) -> list[str]:
    labels = list(domain.label_names[:n_classes])
    return labels + [f"{domain.target_name}_{k}" for k in range(len(labels), n_classes)]


def mutate_domain(dna, *, rng: np.random.Generator, seed_names: set[str], log: list | None = None) -> DomainChoice:
    """Choose a domain that fits the modality and task type and name the columns; no seed name comes through.

    Domains wide enough for the DNA's columns and classes are preferred, so that names rarely need repeating.
    """
    regression = dna.task_type == "regression"
    n_classes = 0 if regression else dna.n_classes
    banned = banned_tokens(seed_names)
    slots = named_slots(dna)
    fitting = fitting_domains(dna)
    clean = [d for d in fitting if not _clashes(d, banned, n_classes)] or fitting
    roomy = [d for d in clean if len(_usable_features(d, banned)) >= sum(kind != "text" for kind in slots)
             and len(d.label_names) >= n_classes]
    candidates = roomy or clean
    domain = candidates[int(rng.integers(len(candidates)))]
    labels = _labels(domain, n_classes)
    features = _assign_names(slots, domain, banned)
    text_field = next((feature["name"] for feature in features if feature["unit"] == "text"), "")
    keys = ([*labels, "common"] if labels else list(domain.vocabulary)) if text_field else []
    vocabulary = {key: list(domain.vocabulary[key]) for key in keys if key in domain.vocabulary}
    if log is not None:
        log.append({"stage": "domain", "message": f"chose {domain.domain_id} ({domain.sector}) among {len(candidates)} "
                                                  f"fitting domains"})
    return DomainChoice(domain.domain_id, domain.sector, domain.title, domain.entity, domain.target_name, labels,
                        domain.target_unit, features, domain.context, domain.image_subject, text_field, vocabulary)
