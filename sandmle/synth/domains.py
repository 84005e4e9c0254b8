"""Domain mutation: a library of target domains and the choice of one with coherent names for a seed's DNA."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class Domain:
    domain_id: str
    sector: str
    title: str
    entity: str
    target_name: str
    label_names: list[str]
    target_unit: str
    features: list[tuple[str, str]]  # (snake_case name, unit)
    context: str
    modalities: tuple[str, ...] = ("tabular",)


@dataclass
class DomainChoice:
    domain_id: str
    sector: str
    title: str
    entity: str
    target_name: str
    label_names: list[str]
    target_unit: str
    features: list[dict] = field(default_factory=list)  # {name, unit}
    context: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


_SEVERITY = ["none", "minor", "moderate", "severe", "critical", "grade_5", "grade_6", "grade_7", "grade_8", "grade_9"]

DOMAINS: list[Domain] = [
    Domain("turbine_faults", "energy", "Wind Turbine Gearbox Fault Triage", "turbine", "fault_class",
           ["healthy", "bearing_wear", "gear_pitting", "misalignment", "lubrication_loss"] + _SEVERITY[5:], "",
           [("rotor_speed", "rpm"), ("oil_temperature", "°C"), ("vibration_rms", "mm/s"), ("power_output", "kW"),
            ("nacelle_yaw_error", "deg"), ("ambient_humidity", "%"), ("blade_pitch", "deg"), ("generator_current", "A")],
           "Operators of an onshore wind farm log SCADA readings for every turbine. Maintenance crews are scarce, so the "
           "operator wants to triage which gearbox fault, if any, a turbine is developing."),
    Domain("crop_disease", "agriculture", "Maize Leaf Disease Detection", "field plot", "disease",
           ["healthy", "rust", "blight", "grey_spot", "streak_virus"] + _SEVERITY[5:], "",
           [("leaf_chlorophyll", "SPAD"), ("canopy_temperature", "°C"), ("soil_moisture", "%"), ("nitrogen_index", "ppm"),
            ("plant_height", "cm"), ("rainfall_week", "mm"), ("leaf_area_index", "m²/m²"), ("spore_count", "per m³")],
           "An agronomy cooperative surveys maize plots each week. Early identification of the disease affecting a plot lets "
           "growers target fungicide where it matters.", ("tabular", "image")),
    Domain("machine_failure", "manufacturing", "CNC Spindle Failure Prediction", "machining job", "failure",
           ["no_failure", "failure", "tool_wear", "overstrain", "heat_dissipation"] + _SEVERITY[5:], "",
           [("spindle_torque", "Nm"), ("tool_wear_minutes", "min"), ("coolant_flow", "L/min"), ("process_temperature", "K"),
            ("feed_rate", "mm/min"), ("chatter_amplitude", "µm"), ("air_temperature", "K"), ("motor_load", "%")],
           "A contract machining shop records each job's sensor summary. Predicting failures before they happen avoids "
           "scrapped parts and unplanned downtime."),
    Domain("loan_default", "finance", "Small-Business Loan Default", "loan application", "outcome",
           ["repaid", "defaulted", "restructured", "late", "written_off"] + _SEVERITY[5:], "",
           [("annual_revenue", "kUSD"), ("debt_to_income", "ratio"), ("years_trading", "years"), ("credit_lines", "count"),
            ("loan_amount", "kUSD"), ("collateral_value", "kUSD"), ("late_payments", "count"), ("owner_equity", "%")],
           "A community lender funds small businesses. It wants to know, at application time, how a loan is likely to end."),
    Domain("parcel_delay", "logistics", "Parcel Delivery Delay Class", "shipment", "delay_band",
           ["on_time", "one_day", "two_days", "week", "lost"] + _SEVERITY[5:], "",
           [("distance_km", "km"), ("parcel_weight", "kg"), ("hub_load", "%"), ("driver_shift_hours", "h"),
            ("weather_index", "score"), ("stops_on_route", "count"), ("handover_count", "count"), ("dispatch_hour", "h")],
           "A regional courier wants to warn customers early when a shipment will be late, and by how much."),
    Domain("network_churn", "telecom", "Broadband Subscriber Churn", "subscriber", "status",
           ["retained", "churned", "downgraded", "upgraded", "paused"] + _SEVERITY[5:], "",
           [("monthly_charge", "EUR"), ("tenure_months", "months"), ("support_calls", "count"), ("avg_latency", "ms"),
            ("download_gb", "GB"), ("outage_minutes", "min"), ("contract_left", "months"), ("speed_tier", "Mbps")],
           "An internet provider loses subscribers every month. Retention offers work only if sent to the right people."),
    Domain("air_quality", "environment", "Urban Air Quality Alert Level", "monitoring station-hour", "alert_level",
           ["good", "moderate", "unhealthy", "very_unhealthy", "hazardous"] + _SEVERITY[5:], "µg/m³",
           [("no2_level", "µg/m³"), ("wind_speed", "m/s"), ("traffic_volume", "vehicles/h"), ("temperature", "°C"),
            ("boundary_layer", "m"), ("humidity", "%"), ("ozone_level", "µg/m³"), ("pressure", "hPa")],
           "A city runs low-cost monitoring stations. It issues public alerts when particulate levels are expected to rise."),
    Domain("road_damage", "transport", "Road Surface Damage Grading", "road segment", "damage_grade",
           ["intact", "cracked", "potholed", "rutted", "collapsed"] + _SEVERITY[5:], "",
           [("roughness_index", "m/km"), ("traffic_load", "ESAL"), ("pavement_age", "years"), ("freeze_cycles", "count"),
            ("drainage_score", "score"), ("asphalt_thickness", "mm"), ("truck_share", "%"), ("last_resurfacing", "years")],
           "A highway agency photographs and surveys its network. Crews are dispatched by the damage grade of each segment.",
           ("tabular", "image")),
    Domain("solar_defects", "energy", "Solar Panel Defect Classification", "panel", "defect",
           ["clean", "hotspot", "crack", "soiling", "delamination"] + _SEVERITY[5:], "",
           [("cell_temperature", "°C"), ("irradiance", "W/m²"), ("string_voltage", "V"), ("panel_age", "years")],
           "An inspection drone photographs panels of a solar park; thermal patterns reveal the defect type.", ("image",)),
    Domain("claim_cost", "insurance", "Household Claim Cost Estimation", "claim", "claim_cost",
           [], "EUR",
           [("property_age", "years"), ("floor_area", "m²"), ("rain_24h", "mm"), ("distance_to_river", "km"),
            ("policy_excess", "EUR"), ("prior_claims", "count"), ("roof_age", "years"), ("occupants", "count"),
            ("building_value", "kEUR"), ("alarm_score", "score")],
           "An insurer wants to reserve the right amount for each incoming household claim."),
    Domain("energy_demand", "energy", "Building Energy Demand Forecast", "building-day", "energy_use",
           [], "kWh",
           [("outdoor_temperature", "°C"), ("occupancy_rate", "%"), ("floor_space", "m²"), ("insulation_rating", "score"),
            ("solar_gain", "kWh"), ("hvac_setpoint", "°C"), ("weekday_index", "index"), ("window_ratio", "%"),
            ("equipment_load", "kW"), ("building_age", "years")],
           "A facilities company manages office buildings and buys energy a day ahead."),
    Domain("yield_forecast", "agriculture", "Vineyard Yield Forecast", "vineyard block", "yield_per_hectare",
           [], "t/ha",
           [("growing_degree_days", "°C·day"), ("vine_age", "years"), ("canopy_density", "score"), ("soil_ph", "pH"),
            ("irrigation", "mm"), ("frost_days", "count"), ("bud_count", "per vine"), ("slope", "deg"),
            ("row_spacing", "m"), ("organic_matter", "%")],
           "A wine estate plans harvest labour and tank space from a forecast of each block's yield."),
]


def _tokens(name: str) -> set[str]:
    return {token for token in name.lower().replace("-", "_").replace(" ", "_").split("_") if len(token) > 2}


def mutate_domain(dna, *, rng: np.random.Generator, seed_names: set[str], log: list | None = None) -> DomainChoice:
    """Choose a domain that fits the modality and task type and name the features; no seed name comes through."""
    regression = dna.task_type == "regression"
    fitting = [d for d in DOMAINS if dna.modality in d.modalities and bool(d.label_names) != regression]
    if not fitting:  # text and other modalities fall back to tabular-capable domains
        fitting = [d for d in DOMAINS if bool(d.label_names) != regression]
    domain = fitting[int(rng.integers(len(fitting)))]
    banned = set().union(*(_tokens(name) for name in seed_names)) if seed_names else set()
    n_named = 0 if dna.modality == "image" else sum(f.kind != "pixel" for f in dna.features)
    features = []
    for index in range(n_named):
        name, unit = domain.features[index % len(domain.features)]
        if index >= len(domain.features):
            name = f"{name}_{index // len(domain.features) + 1}"
        if _tokens(name) & banned:
            name = f"{domain.entity.split()[0]}_signal_{index + 1}"
        features.append({"name": name, "unit": unit})
    labels = domain.label_names[: dna.n_classes] if not regression else []
    if log is not None:
        log.append({"stage": "domain", "message": f"chose {domain.domain_id} ({domain.sector}) among {len(fitting)} fitting domains"})
    return DomainChoice(domain.domain_id, domain.sector, domain.title, domain.entity, domain.target_name, labels,
                        domain.target_unit, features, domain.context)
