"""Replies of a well-behaved model for the LLM-backed synthesis stages, served by tests/chat_server.py in tests."""

from __future__ import annotations

import json


def reading(name: str, unit: str, typical: tuple, bounds: tuple = (0, None), whole: bool = False) -> dict:
    """A numeric column of a domain reply with its declared range."""
    return {"name": name, "unit": unit, "typical": list(typical), "bounds": list(bounds), "whole": whole}


HYDRO_FEATURES = [reading("head_pressure", "bar", (8, 25)), reading("flow_rate", "m³/s", (20, 180)),
                  reading("runner_vibration", "mm/s", (0.5, 6)), reading("silt_load", "g/L", (0.05, 2))]


def hydro_domain(**changes) -> str:
    """A valid domain reply for a 4-column, 3-class DNA (iris's shape), with `changes` applied."""
    domain = {"domain_id": "hydro_turbine_wear", "sector": "energy", "title": "Hydro Turbine Runner Wear Class",
              "entity": "turbine inspection", "target_name": "wear_class", "target_unit": "",
              "label_names": ["sound", "cavitation_pitting", "abrasion"],
              "features": HYDRO_FEATURES,
              "context": "A hydropower utility inspects the runners of its turbines during low-water season. Each "
                         "inspection is expensive, so the utility wants to predict the wear class of every runner "
                         "from its operating record and send divers only where repairs are due."}
    return json.dumps(domain | changes)


def simulated_llm(request: dict) -> str:
    """Names every column slot of the DNA summary it is shown, and returns the example rule it is shown as its own."""
    system, user = request["messages"][0]["content"], request["messages"][1]["content"]
    if "domain-mutation" in system:
        statistics = json.loads(user.splitlines()[1])
        columns = {"integer": lambda name: reading(name, "count", (0, 20), whole=True),
                   "numeric": lambda name: reading(name, "kPa", (90, 110)),
                   "categorical": lambda name: {"name": name, "unit": "category", "levels": ["open", "closed", "bypass"]}}
        slots = [c for c in statistics["columns"] if c["kind"] != "text"]
        labels = ["sound", "cavitation_pitting", "abrasion"] + [f"wear_level_{k}" for k in range(3, 20)]
        extra = {"image_subject": "a greyscale photograph of a turbine runner blade"} if "image_shape" in statistics else {}
        if len(slots) < len(statistics["columns"]):
            extra |= {"text_field": "inspection_note",
                      "vocabulary": {label: [f"{label} seen", f"signs of {label}", f"{label} noted"] for label in labels}}
        if "n_classes" not in statistics:
            extra |= {"target_unit": "kPa"}
        return hydro_domain(features=[columns[c["kind"]](f"gauge_{c['slot']}") for c in slots],
                            label_names=labels[: statistics.get("n_classes", 0)], **extra)
    marker = "A valid rule of this family, designed at random on these columns: "
    return next(line[len(marker):] for line in user.splitlines() if line.startswith(marker))
