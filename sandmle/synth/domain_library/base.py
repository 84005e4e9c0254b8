"""The Domain record of the domain library and a compact way to write one."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Domain:
    """A target domain a seed's DNA can be mutated into.

    domain_id, sector, title: identity and the heading of description.md.
    entity: what one row is ("wind turbine-day", "loan application").
    target_name: the column to predict.
    label_names: the classes, the normal/negative one first; the first two make a sensible binary pair. Empty for a
        regression domain.
    target_unit: the unit of a regression target ("" for classes).
    features: (snake_case name, unit) of the tabular columns, most telling first. The unit "count" marks an integer
        count and "category" a coded categorical, so DNA features that are integers or categorical get those first.
    context: the overview paragraph of description.md, in the voice of a competition host.
    modalities: the DNA modalities it fits: "tabular", "image", "text".
    image_subject: image domains: what one picture shows ("an electroluminescence tile of one solar cell").
    text_field: text domains: the name of the free-text column ("log_entry").
    vocabulary: text domains: sector phrases keyed by label name (by topic for a regression domain); the key
        "common" holds phrases that say nothing about the label. Text generation composes documents from them.
    """

    domain_id: str
    sector: str
    title: str
    entity: str
    target_name: str
    label_names: tuple[str, ...]
    target_unit: str
    features: tuple[tuple[str, str], ...]
    context: str
    modalities: tuple[str, ...] = ("tabular",)
    image_subject: str = ""
    text_field: str = ""
    vocabulary: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def is_regression(self) -> bool:
        return not self.label_names


def domain(domain_id: str, sector: str, title: str, *, entity: str, target: str, features: str, context: str,
           labels: str = "", unit: str = "", modalities: tuple[str, ...] = ("tabular",), image_subject: str = "",
           text_field: str = "", vocabulary: dict[str, str] | None = None) -> Domain:
    """Build a Domain from compact text: labels split on spaces, features as "name unit | name unit | ...",
    vocabulary values as phrases separated by ";"."""
    parsed = []
    for item in features.split("|"):
        name, _, feature_unit = item.strip().partition(" ")
        parsed.append((name, feature_unit.strip()))
    phrases = {key: tuple(p.strip() for p in text.split(";") if p.strip()) for key, text in (vocabulary or {}).items()}
    return Domain(domain_id, sector, title, entity, target, tuple(labels.split()), unit, tuple(parsed),
                  " ".join(context.split()), modalities, image_subject, text_field, phrases)
