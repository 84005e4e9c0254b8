"""Where real readings of every domain column lie: a typical range (about the 5th-95th percentile of real data), hard
bounds (what the unit or physics allows) and whether the values are whole; and the level names of coded categories.

Generation carries a seed column's shape onto its domain column's typical range, and the critic measures plausibility
against the band these records give, so each line here is what a reviewer would expect the column to read. A line is
`name unit: low..high`, then `whole` for whole numbers and `in low..high` where the unit's hard bounds are not the
column's (`*` for no bound). The unit's own bounds are in UNIT_BOUNDS; a unit listed in WHOLE_UNITS is always whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INF = math.inf

# Hard bounds implied by a unit: what no reading in that unit can cross (None = unbounded on that side).
_NON_NEGATIVE = (
    "count counts ratio score index points years months days h min s ms km m mm cm µm m² km² kg g L GB B B/s count/s "
    "t/year kg/m³ m/s km/h kn mm/s rpm kW MW W kWh A kA N cN Nm bar psi hPa kPa mTorr sccm ppm µg/m³ mg/m³ mg/L µg/L "
    "mg/dL g/dL mmol/L ng/mL 10⁹/L 10³/mL mL/h bpm breaths/min mmHg EUR kEUR kUSD EUR/L thousands millions lux NTU "
    "µS/cm mS/cm mΩ SPAD m²/m² plants/m² L/min mm/min Mbps vehicles/h vehicles/day m/km ESAL m/m² AU tex picks/min "
    "m/min bags/h people/km² jobs/km² trees/ha mm/h m³/s x mAs kV per_vine nm/min W/m² K dB °C·h °C·day units"
).split()
UNIT_BOUNDS: dict[str, tuple[float, float]] = {unit: (0.0, INF) for unit in _NON_NEGATIVE} | {
    "%": (0.0, 100.0), "fraction": (0.0, 1.0), "pH": (0.0, 14.0), "°Brix": (0.0, 100.0), "bits": (0.0, 8.0),
    "density": (0.0, 6.0), "h/week": (0.0, 168.0), "h/day": (0.0, 24.0), "day": (1.0, 366.0), "week": (1.0, 53.0),
    "month": (1.0, 12.0), "year": (1800.0, 2100.0), "decade": (1800.0, 2100.0), "°C": (-273.15, INF),
    "deg": (-360.0, 360.0), "V": (-INF, INF), "mV": (-INF, INF), "bp": (-INF, INF), "MPa": (-INF, INF),
    "turns": (-INF, INF), "%_change": (-100.0, INF),
}
# Units whose bounds are their definition (a share, a count): no column may declare wider ones. Other units' bounds
# are defaults a column may widen with physical knowledge (a base excess below zero, land below sea level).
DEFINED_BY_UNIT = frozenset({"%", "fraction", "count", "counts", "pH", "°Brix", "h/day", "h/week", "day", "week",
                             "month"})
WHOLE_UNITS = frozenset({"count", "counts", "day", "week", "month", "year", "decade"})


@dataclass(frozen=True)
class Reading:
    """One column's declared range: typical (about the 5th-95th percentile), hard bounds, whole numbers or not."""

    typical: tuple[float, float]
    bounds: tuple[float, float]
    whole: bool

    def band(self) -> tuple[float, float]:
        """Where a reading is plausible: the typical range widened by its own width on each side, within the bounds."""
        low, high = self.typical
        width = high - low
        return max(self.bounds[0], low - width), min(self.bounds[1], high + width)

    def to_dict(self) -> dict:
        """JSON for a TaskSpec: infinite bounds become None (JSON has no infinity)."""
        return {"typical": list(self.typical), "bounds": [_finite(b) for b in self.bounds], "whole": self.whole}

    @classmethod
    def from_dict(cls, data: dict) -> "Reading":
        low, high = data["bounds"]
        return cls(tuple(float(v) for v in data["typical"]), (-INF if low is None else float(low),
                                                              INF if high is None else float(high)), bool(data["whole"]))


def _finite(value: float) -> float | None:
    return None if math.isinf(value) else value


def _number(text: str, infinite: float) -> float:
    return infinite if text == "*" else float(text)


def _parse(table: str) -> dict[tuple[str, str], Reading]:
    readings = {}
    for line in filter(None, (line.strip() for line in table.splitlines())):
        head, _, tail = line.partition(":")
        name, _, unit = head.strip().partition(" ")
        words = tail.split()
        low, high = (float(v) for v in words[0].split(".."))
        unit = unit.strip()
        bounds = UNIT_BOUNDS[unit.replace(" ", "_")]
        if "in" in words:
            lowest, highest = words[words.index("in") + 1].split("..")
            bounds = (_number(lowest, -INF), _number(highest, INF))
        readings[(name, unit)] = Reading((low, high), bounds, "whole" in words or unit in WHOLE_UNITS)
    return readings


READINGS = _parse("""
rotor_speed rpm: 6..16
oil_temperature °C: 40..70 in -40..150
vibration_rms mm/s: 0.5..6
power_output kW: 50..2300
nacelle_yaw_error deg: -12..12 in -180..180
ambient_humidity %: 35..95
blade_pitch deg: -2..25 in -10..95
generator_current A: 40..1800
wind_speed m/s: 3..16 in 0..75
bearing_temperature °C: 35..75 in -40..150
oil_particle_count count: 20..900
gearbox_pressure bar: 1.5..4.5
tower_sway mm: 20..250
cable_twist turns: -2.5..2.5 in -5..5
leaf_chlorophyll SPAD: 30..55 in 0..80
canopy_temperature °C: 20..36 in -10..55
soil_moisture %: 12..38
nitrogen_index ppm: 10..60
plant_height cm: 40..260 in 0..450
rainfall_week mm: 0..60
leaf_area_index m²/m²: 0.8..5 in 0..12
spore_count count: 0..400
relative_humidity %: 35..95
days_after_sowing days: 20..120 whole in 0..200
lesion_cover %: 0..35
stand_density plants/m²: 4..10 in 0..20
soil_ph pH: 5.2..7.8 in 3..10
dew_hours h: 0..10 in 0..24
spindle_torque Nm: 25..55 in 0..120
tool_wear_minutes min: 10..220 whole in 0..300
coolant_flow L/min: 8..30
process_temperature K: 308..313 in 280..400
feed_rate mm/min: 150..1500
chatter_amplitude µm: 1..25
air_temperature K: 296..304 in 260..330
motor_load %: 30..90
rotational_speed rpm: 1300..2400 whole in 0..20000
axial_force N: 200..2500
tool_changes count: 0..6
cycle_time s: 40..600
coolant_concentration %: 4..10
annual_revenue kUSD: 60..2500
debt_to_income ratio: 0.1..0.6 in 0..5
years_trading years: 1..25 whole in 0..150
credit_lines count: 1..8
loan_amount kUSD: 10..250
collateral_value kUSD: 0..400
late_payments count: 0..5
owner_equity %: 10..80
employees count: 1..60
interest_rate %: 5..18 in 0..60
term_months months: 12..84 whole in 1..360
cash_reserves kUSD: 5..300
industry_risk_score score: 1..9 in 0..10
distance_km km: 3..320 in 0..3000
parcel_weight kg: 0.2..18 in 0..70
hub_load %: 45..98
driver_shift_hours h: 4..11 in 0..16
weather_index score: 0..8 in 0..10
stops_on_route count: 40..180
handover_count count: 1..5
dispatch_hour h: 5..20 whole in 0..23
parcel_volume L: 1..90
route_congestion score: 1..9 in 0..10
depot_staffing %: 70..100
address_quality score: 4..10 in 0..10
days_to_holiday days: 1..90 whole in 0..366
monthly_charge EUR: 20..75
tenure_months months: 2..90 whole in 0..600
support_calls count: 0..6
avg_latency ms: 8..80
download_volume GB: 30..900
outage_minutes min: 0..240
contract_left months: 0..24 whole in 0..36
speed_tier Mbps: 50..1000
late_bills count: 0..3
wifi_complaints count: 0..4
household_devices count: 2..18
price_change % change: -5..10 in -100..100
competitor_coverage %: 20..95
no2_level µg/m³: 10..90 in 0..1000
traffic_volume vehicles/h: 150..3500
air_temperature °C: -2..32 in -60..60
boundary_layer_height m: 200..1800 in 0..5000
ozone_level µg/m³: 15..140 in 0..800
surface_pressure hPa: 990..1035 in 870..1090
so2_level µg/m³: 1..25 in 0..1000
co_level mg/m³: 0.2..2.5 in 0..100
rainfall mm: 0..12
heating_degree_hours °C·h: 0..14
construction_sites count: 0..12
roughness_index m/km: 1..5 in 0..20
traffic_load ESAL: 50000..2000000
pavement_age years: 2..40 whole in 0..100
freeze_cycles count: 5..90
drainage_score score: 1..9 in 0..10
asphalt_thickness mm: 50..250
truck_share %: 3..30
years_since_resurfacing years: 1..25 whole in 0..100
rut_depth mm: 2..20 in 0..80
crack_density m/m² : 0..2.5
subgrade_strength MPa: 30..150 in 0..1000
annual_rainfall mm: 350..1400 in 0..12000
speed_limit km/h: 30..120 whole in 5..140
heart_rate bpm: 60..125 in 20..250
respiratory_rate breaths/min: 12..30 in 4..70
body_temperature °C: 36..39.2 in 25..45
systolic_pressure mmHg: 85..160 in 40..280
diastolic_pressure mmHg: 45..95 in 20..180
mean_arterial_pressure mmHg: 60..110 in 30..200
oxygen_saturation %: 88..100 in 40..100
fio2 fraction: 0.21..0.6 in 0.21..1
lactate mmol/L: 0.7..4.5 in 0..30
white_cell_count 10⁹/L: 4..20 in 0..200
platelets 10⁹/L: 80..400 in 0..1500
creatinine mg/dL: 0.6..3.2 in 0..20
bilirubin mg/dL: 0.3..3 in 0..50
glucose mg/dL: 80..220 in 10..1500
potassium mmol/L: 3.3..5.3 in 1..10
sodium mmol/L: 132..146 in 100..180
chloride mmol/L: 96..112 in 60..140
bicarbonate mmol/L: 18..30 in 2..50
blood_urea_nitrogen mg/dL: 8..50 in 1..250
hemoglobin g/dL: 8.5..15 in 2..25
hematocrit %: 26..45 in 5..75
ph_arterial pH: 7.28..7.48 in 6.5..7.9
paco2 mmHg: 30..52 in 5..150
base_excess mmol/L: -8..4 in -40..40
calcium mg/dL: 7.8..10.2 in 3..20
magnesium mg/dL: 1.6..2.6 in 0.3..10
phosphate mg/dL: 2.3..5 in 0.3..20
ptt s: 25..50 in 10..200
fibrinogen mg/dL: 180..600 in 20..1500
troponin ng/mL: 0..0.6 in 0..100
hours_since_admission h: 1..120 in 0..2000
patient_years years: 25..88 whole in 16..110
urine_output mL/h: 20..150 in 0..1000
flow_duration ms: 1..60000
forward_packets count: 1..120
backward_packets count: 0..110
forward_bytes B: 60..90000
backward_bytes B: 0..150000
packet_length_avg B: 40..900 in 0..65535
packet_length_max B: 60..1500 in 0..65535
packet_length_std B: 0..600 in 0..65535
inter_arrival_avg ms: 0.1..2000
inter_arrival_max ms: 1..30000
inter_arrival_std ms: 0..5000
syn_flags count: 0..2
ack_flags count: 0..100
rst_flags count: 0..2
psh_flags count: 0..40
fin_flags count: 0..2
urg_flags count: 0..1
window_size_init B: 256..65535 whole in 0..1073725440
active_time_avg ms: 0..3000
idle_time_avg ms: 0..50000
bytes_per_second B/s: 50..500000
packets_per_second count/s: 1..2000
header_bytes B: 40..4000
segment_size_avg B: 40..1460 in 0..65535
bulk_rate B/s: 0..50000
subflow_packets count: 1..120
distinct_ports_contacted count: 1..25
down_up_ratio ratio: 0..3
payload_entropy bits: 3..7.9
rf_forward_power W: 300..1200
rf_reflected_power W: 0..25
chamber_pressure mTorr: 30..200
throttle_position %: 10..70
chf3_flow sccm: 20..80
cf4_flow sccm: 20..120
oxygen_flow sccm: 5..50
argon_flow sccm: 50..300
helium_backside_flow sccm: 5..20
electrode_temperature °C: 15..60 in -50..200
wall_temperature °C: 40..80 in -50..250
chuck_voltage V: 500..2500 in -5000..5000
dc_bias V: -500..-100 in -2000..100
optical_emission_703 counts: 500..9000
optical_emission_777 counts: 800..12000
optical_emission_440 counts: 300..6000
endpoint_time s: 30..120
step_duration s: 20..180
tuner_load_position %: 20..80
tuner_tune_position %: 20..80
rf_phase_error deg: -8..8 in -180..180
vacuum_base_pressure mTorr: 0.1..2
lot_wafers count: 13..25 in 1..25
chamber_hours_since_clean h: 5..400
focus_ring_wear_index index: 0..0.8 in 0..1
gas_line_pressure psi: 15..40
exhaust_temperature °C: 35..80 in -20..300
particle_count count: 0..60
etch_rate_estimate nm/min: 200..900
uniformity_estimate %: 1..8
amount EUR: 3..450
merchant_risk_score score: 0.02..0.7 in 0..1
hour_of_day h: 0..23 whole in 0..23
card_age days: 30..2500 whole in 0..10000
transactions_last_hour count: 0..4
transactions_last_day count: 0..12
amount_last_day EUR: 0..900
distinct_merchants_week count: 1..20
distance_from_home km: 0.5..300 in 0..20000
device_age days: 0..900 whole in 0..5000
failed_logins_day count: 0..3
cvv_retries count: 0..2
shipping_billing_distance km: 0..800 in 0..20000
email_age days: 30..4000 whole in 0..12000
basket_items count: 1..9
average_ticket_90d EUR: 12..180
chargebacks_year count: 0..2
velocity_ratio ratio: 0.3..3.5
minutes_since_last min: 2..4000
session_duration s: 30..1500
password_resets_month count: 0..2
card_present_share %: 10..95
new_payee_share %: 0..30
crossborder_share %: 0..25
declined_last_week count: 0..3
customer_tenure months: 3..180 whole in 0..900
time_on_checkout s: 20..600
admission_grade score: 105..170 in 95..200
attendance_rate %: 55..98
credits_attempted count: 12..36
credits_passed count: 0..30
average_grade score: 10..16 in 0..20
library_visits count: 0..25
lms_logins_week count: 1..25
tuition_paid_on_time %: 40..100
commute_minutes min: 5..75 whole in 0..300
scholarship_share %: 0..60
part_time_hours h/week: 0..25
entry_age years: 18..32 whole in 15..80
tutoring_sessions count: 0..10
assignment_lateness days: 0..6 in 0..120
annual_premium EUR: 250..4500
sum_assured kEUR: 20..600
policy_duration years: 1..20 whole in 0..80
holder_years years: 25..70 whole in 18..110
missed_premiums count: 0..4
premium_to_income %: 1..12
riders count: 0..4
agent_tenure years: 1..20 in 0..60
interest_rate_change bp: -75..125 in -1000..1000
surrender_value kEUR: 0..80
service_contacts count: 0..6
address_changes count: 0..3
visits_90d count: 1..40
basket_value_avg EUR: 12..140
days_since_visit days: 1..75 whole in 0..3650
discount_share %: 0..45
categories_bought count: 2..18
email_opens_90d count: 0..30
app_sessions_90d count: 0..60
returns_90d count: 0..4
membership_months months: 3..120 whole in 0..600
store_distance km: 0.5..25 in 0..500
coupon_redemptions_year count: 0..25
private_label_share %: 5..55
weekend_share %: 10..70
ph_value pH: 6.5..8.5 in 0..14
hardness mg/L: 60..300 in 0..2000
total_dissolved_solids mg/L: 100..800 in 0..50000
chloramines mg/L: 0.5..4
sulfate mg/L: 10..250 in 0..3000
conductivity µS/cm: 150..1100 in 0..60000
organic_carbon mg/L: 1..8 in 0..100
trihalomethanes µg/L: 5..80 in 0..500
turbidity NTU: 0.1..4 in 0..1000
free_chlorine mg/L: 0.2..2 in 0..10
nitrate mg/L: 0.5..40 in 0..500
water_age h: 4..96 in 0..1000
pipe_age years: 5..90 whole in 0..150
iron_level mg/L: 0..0.4 in 0..20
acute_load AU: 1200..3500
chronic_load AU: 1500..3200
sprint_distance m: 50..700
high_speed_runs count: 5..45
sleep_hours h: 5.5..9 in 0..16
resting_heart_rate bpm: 42..68 in 25..120
hrv_rmssd ms: 30..140 in 2..400
soreness_score score: 1..8 in 0..10
match_minutes min: 0..95 whole in 0..130
travel_hours h: 0..12 in 0..48
previous_injuries count: 0..5
jump_height cm: 30..55 in 0..100
hamstring_force N: 250..500
lead_time days: 0..300 whole in 0..800
nightly_rate EUR: 45..280
nights count: 1..10 in 1..60
adults count: 1..3 in 1..10
children count: 0..2 in 0..10
special_requests count: 0..3
previous_cancellations count: 0..1
booking_changes count: 0..2
parking_spaces count: 0..1 in 0..5
waiting_list_days days: 0..20 whole in 0..400
structure_age years: 8..80 whole in 0..200
daily_traffic vehicles/day: 800..60000 whole
span_length m: 10..120 in 1..2000
deck_width m: 7..30 in 2..80
deicing_salt_tons t/year: 0..40
chloride_content kg/m³: 0.3..6 in 0..30
cover_depth mm: 25..75
crack_width mm: 0.05..0.6 in 0..20
years_since_repair years: 1..30 whole in 0..150
freeze_thaw_cycles count: 5..90
joint_leak_score score: 0..4 in 0..5
half_cell_potential mV: -450..-100 in -1000..300
milk_yield L: 14..42 in 0..90
milk_conductivity mS/cm: 4.3..6.5 in 2..15
somatic_cell_count 10³/mL: 40..600 in 0..10000
rumination_minutes min: 380..620 whole in 0..900
activity_steps count: 1500..5000
lying_hours h: 8..14 in 0..24
feed_intake kg: 16..28 in 0..50
days_in_milk days: 10..320 whole in 0..700
parity count: 1..6 in 1..15
milk_fat %: 3.2..4.8 in 1..10
milk_protein %: 2.9..3.8 in 1.5..6
body_condition_score score: 2.5..3.75 in 1..5
methane_level %: 0..0.8 in 0..100
carbon_monoxide ppm: 0..25
airflow_velocity m/s: 0.5..4
oxygen_level %: 19.5..20.9 in 0..25
barometric_pressure hPa: 990..1060 in 800..1200
fan_power kW: 150..1500
dust_concentration mg/m³: 0.5..4
active_machines count: 1..12
blasting_events count: 0..2
distance_to_face m: 5..400
regulator_opening %: 20..90
pack_voltage V: 320..410 in 0..1000
capacity_fade %: 1..20
internal_resistance mΩ: 60..180
cell_voltage_spread mV: 5..60 in 0..1000
max_cell_temperature °C: 20..45 in -40..80
fast_charge_share %: 0..60
full_cycles count: 50..1200
calendar_age months: 3..96 whole in 0..300
depth_of_discharge_avg %: 20..80
odometer km: 5000..180000 in 0..1000000
balancing_events count: 0..40
cold_start_share %: 0..35
coolant_pump_hours h: 100..4000
customers_affected count: 10..6000
duration_minutes min: 20..480
wind_gust km/h: 15..90 in 0..300
rainfall_24h mm: 0..45
lightning_strikes count: 0..30
feeder_age years: 5..55 whole in 0..120
tree_cover %: 5..70
load_before_outage MW: 1..15
recloser_operations count: 0..4
fault_current kA: 0.5..12 in 0..100
overhead_share %: 30..100
engine_speed rpm: 60..120 in 0..1000
shaft_power kW: 4000..22000
scavenge_pressure bar: 1.5..3.8 in 0..6
fuel_rack_position %: 35..85
cylinder_pressure_max bar: 110..170 in 0..250
cooling_water_temperature °C: 75..90 in 0..120
lube_oil_pressure bar: 2..5
turbocharger_speed rpm: 7000..16000
sea_water_temperature °C: 5..30 in -2..36
vessel_speed kn: 9..20 in 0..40
draft m: 6..14 in 1..25
running_hours_since_overhaul h: 200..16000
project_cost kEUR: 50..5000
floor_area m² : 60..600 in 5..100000
storeys count: 1..6 in 1..100
plot_area m²: 200..3000
objections count: 0..8
review_days days: 20..180 whole in 0..1000
applicant_prior_permits count: 0..10
height_above_limit m: 0..3
trees_removed count: 0..10
amendments count: 0..4
property_years years: 5..90 whole in 0..400
rain_24h mm: 0..50
distance_to_river km: 0.1..10 in 0..1000
policy_excess EUR: 100..1000
prior_claims count: 0..3
roof_years years: 2..40 whole in 0..150
occupants count: 1..5 in 0..15
building_value kEUR: 150..800
alarm_score score: 0..5 in 0..5
days_to_report days: 0..20 whole in 0..365
contents_sum_insured kEUR: 20..120
outdoor_temperature °C: -3..30 in -50..55
occupancy_rate %: 5..90
floor_space m²: 1500..25000
insulation_rating score: 2..9 in 0..10
solar_gain kWh: 0..600
hvac_setpoint °C: 19..24 in 10..30
weekday_index index: 0..6 whole in 0..6
window_ratio %: 20..60
equipment_load kW: 30..400
construction_decade decade: 1950..2020 in 1800..2030
wind_chill °C: -10..28 in -60..55
cloud_cover %: 5..100
meeting_rooms_booked count: 0..25
growing_degree_days °C·day: 1100..2200
vine_years years: 5..45 whole in 0..120
canopy_density score: 2..8 in 0..10
irrigation mm: 0..300
frost_days count: 0..12
bud_count per vine: 12..40 whole
slope deg: 0..20 in 0..60
row_spacing m: 1.8..3.2 in 0.5..5
organic_matter %: 1..5
bunch_weight_sample g: 80..260
flowering_rain mm: 0..60
pruning_severity score: 2..8 in 0..10
route_distance km: 0.8..9 in 0..50
items count: 1..8 in 1..100
order_weight kg: 0.3..6
courier_experience months: 1..48 whole in 0..600
restaurant_prep_time min: 5..30
traffic_index score: 1..9 in 0..10
rain_intensity mm/h: 0..8
orders_in_queue count: 0..15
building_floor count: 0..12 in 0..100
courier_rating score: 4..5 in 1..5
living_space m²: 30..130 in 8..1000
rooms count: 1..5 in 1..20
floor_level count: 0..10 in 0..100
building_year year: 1900..2022
distance_to_centre km: 0.5..15 in 0..100
transit_minutes min: 10..60 whole in 0..240
balcony_area m²: 0..15
energy_rating score: 1..7 in 1..7
noise_level dB: 40..70 in 10..130
nearby_schools count: 0..8
service_charge EUR: 80..400
view_score score: 1..9 in 0..10
comorbidity_index score: 0..7 in 0..40
admission_heart_rate bpm: 60..120 in 20..250
admission_glucose mg/dL: 80..250 in 10..1500
prior_admissions_year count: 0..4
medications count: 1..14
mobility_score score: 2..10 in 0..10
surgery_minutes min: 0..240 whole in 0..1200
albumin g/dL: 2.8..4.8 in 0.5..7
frailty_score score: 1..7 in 1..9
study_hours h/week: 2..20
homework_completion %: 40..100
mock_exam_score points: 30..95 whole in 0..100
tutoring_hours h/week: 0..6
class_size count: 15..32 in 1..60
screen_time h/day: 1..7
absences count: 0..14
extracurricular_hours h/week: 0..10
teacher_experience years: 1..30 whole in 0..50
cement kg/m³: 150..480 in 50..700
blast_furnace_slag kg/m³: 0..240 in 0..400
fly_ash kg/m³: 0..170 in 0..300
water kg/m³: 140..220 in 100..300
superplasticizer kg/m³: 0..15 in 0..40
coarse_aggregate kg/m³: 850..1120 in 600..1300
fine_aggregate kg/m³: 600..900 in 400..1100
curing_days days: 3..100 whole in 1..400
curing_temperature °C: 10..30 in -10..90
air_content %: 1..7
slump mm: 25..200 in 0..300
water_cement_ratio ratio: 0.35..0.65 in 0.2..1.2
service_trips count: 20..200
route_length km: 5..35
population_served thousands: 5..120
employment_density jobs/km²: 200..8000
fare EUR: 1.2..3.5 in 0..20
headway_minutes min: 5..30 in 1..240
precipitation mm: 0..20
fuel_price EUR/L: 1.4..2.1 in 0..5
events_nearby count: 0..4
on_time_share %: 70..97
store_size m²: 800..8000
promotion_depth %: 0..30
competitor_distance km: 0.3..15 in 0..200
footfall count: 3000..40000
markdown_budget kEUR: 0..60
unemployment_rate %: 3..12 in 0..50
staff_hours h: 400..2500
local_events count: 0..5
online_share %: 5..35
rainfall_72h mm: 0..90
snow_water_equivalent mm: 0..250
evapotranspiration mm: 0.5..6
upstream_level m: 0.4..4 in 0..30
reservoir_release m³/s: 2..80
catchment_area km²: 50..3000
impervious_share %: 2..40
groundwater_level m: 1..12 in 0..200
day_of_year day: 1..365
player_years years: 18..34 whole in 15..45
minutes_played min: 200..3200 whole in 0..5000
goals count: 0..15
assists count: 0..10
pass_accuracy %: 65..92
sprints_per_match count: 10..45
contract_months_left months: 6..48 whole in 0..72
international_caps count: 0..60
league_strength score: 40..90 in 0..100
injury_days days: 0..90 whole in 0..400
social_followers millions: 0.01..5 in 0..700
duels_won %: 35..65
interval_of_day index: 16..80 whole in 0..95
weekday index: 0..6 whole in 0..6
billing_cycle_day day: 1..28 in 1..31
network_incidents count: 0..4
marketing_emails_sent thousands: 0..120
app_outage_minutes min: 0..45 in 0..1440
new_contracts count: 5..120
website_visits thousands: 2..40
queue_callbacks count: 0..60
price_change_notices thousands: 0..30
weather_alerts count: 0..2
harvest_to_cooling_hours h: 1..10 in 0..96
storage_temperature °C: 0..8 in -30..40
ethylene_level ppm: 0.01..2
firmness N: 20..90
soluble_solids °Brix: 6..16 in 0..40
transport_hours h: 4..72 in 0..500
bruising_score score: 0..4 in 0..5
packaging_oxygen %: 2..21 in 0..25
pallet_position index: 1..26 whole in 1..33
field_temperature °C: 12..34 in -10..50
pre_cooling_minutes min: 30..240 whole in 0..1440
reference_evapotranspiration mm: 2..8 in 0..20
canopy_cover %: 25..80
soil_water_deficit mm: 10..120
vapour_pressure_deficit kPa: 0.4..3.5 in 0..10
tree_density trees/ha: 200..1200
fruit_load score: 2..8 in 0..10
soil_sand_share %: 15..75
stem_water_potential MPa: -2..-0.4 in -10..0
mulch_cover %: 0..80
vehicle_speed km/h: 15..80 in 0..200
camera_height m: 1.2..2.8 in 0..5
sun_elevation deg: 5..60 in -90..90
exposure_time ms: 0.5..20 in 0..1000
gps_accuracy m: 1..12 in 0..100
frame_blur_score score: 0..0.6 in 0..1
pavement_years years: 2..40 whole in 0..100
capture_hour h: 7..18 whole in 0..23
field_altitude m: 200..2200 in -100..5000
light_level lux: 2000..90000 in 0..150000
days_after_planting days: 15..140 whole in 0..365
distance_to_leaf cm: 8..40 in 0..200
focus_score score: 0.3..1 in 0..1
module_years years: 1..20 whole in 0..50
injection_current A: 4..12 in 0..20
exposure_time s: 2..30 in 0..600
camera_temperature °C: -80..-20 in -120..50
string_position index: 1..24 whole in 1..40
irradiance_at_scan W/m²: 0..20 in 0..1400
module_power_loss %: 0..15
wall_thickness mm: 4..30 in 0..200
tube_voltage kV: 120..300 in 10..450
exposure_charge mAs: 50..600
film_density density: 2..3.5
source_to_film_distance mm: 500..1200
welder_experience years: 1..25 whole in 0..50
weld_passes count: 1..8 in 1..40
preheat_temperature °C: 20..200 in -20..400
die_count count: 200..1200
yield_percent %: 70..98
lot_position index: 1..25 whole in 1..25
probe_card_touchdowns count: 20000..400000
test_temperature °C: 25..125 in -55..175
reticle_shots count: 60..150
bag_density score: 1..9 in 0..10
belt_speed m/s: 0.15..0.3 in 0..1
scanner_age years: 1..12 whole in 0..30
view_angle deg: 0..90 in 0..180
items_in_bag count: 5..40
clutter_score score: 1..9 in 0..10
operator_shift_hour h: 0..8 in 0..12
lane_throughput bags/h: 120..260
cloud_fraction %: 0..40
sun_zenith deg: 20..70 in 0..90
acquisition_month month: 1..12
elevation m: 0..2000 in -430..8850
view_zenith deg: 0..12 in 0..90
revisit_days days: 2..16 whole in 1..60
latitude deg: -55..65 in -90..90
atmospheric_haze score: 0..6 in 0..10
magnification x: 100..1000 in 1..2000
slide_thickness µm: 3..8 in 0..50
illumination_level lux: 500..5000 in 0..20000
field_index index: 1..200 whole in 1..1000
loom_speed picks/min: 300..900
yarn_count tex: 10..80
warp_tension cN: 20..120
humidity %: 50..80
loom_years years: 1..25 whole in 0..60
shift_index index: 1..3 whole in 1..3
fabric_width cm: 140..330 in 20..500
inspection_speed m/min: 10..60
flight_hours h: 3000..45000
flight_cycles count: 2000..40000
days_since_check days: 1..600 whole in 0..1500
aircraft_years years: 2..25 whole in 0..60
deferred_items count: 0..6
crew_reports_month count: 0..12
sector_length min: 45..240 whole in 10..1200
products_held count: 1..6
complaints_prior_year count: 0..3
days_to_complain days: 0..90 whole in 0..3650
amount_disputed EUR: 0..2500
customer_years years: 1..30 whole in 0..90
pain_score score: 0..10 whole in 0..10
site_headcount count: 20..800
shift_hour h: 0..23 whole in 0..23
worker_tenure months: 1..180 whole in 0..600
overtime_hours h: 0..15 in 0..100
days_since_last_incident days: 1..400 whole in 0..5000
safety_training_hours h: 2..40 in 0..500
contractor_share %: 0..60
ambient_temperature °C: 5..35 in -40..60
requester_tenure months: 1..150 whole in 0..600
open_tickets count: 0..6
department_size count: 5..400
hour_submitted h: 7..19 whole in 0..23
device_years years: 0..6 in 0..20
previous_tickets_month count: 0..5
star_rating score: 1..5 whole in 1..5
review_words count: 10..250
price EUR: 8..400
days_since_delivery days: 1..60 whole in 0..1000
reviewer_reviews count: 1..120
helpful_votes count: 0..20
returns_rate %: 1..20
district index: 1..25 whole in 1..60
prior_requests_address count: 0..5
photos_attached count: 0..4
population_density people/km²: 500..15000
days_open_similar days: 1..45 whole in 0..1000
vehicle_years years: 1..20 whole in 0..60
vehicle_value EUR: 2000..45000
impact_speed km/h: 5..70 in 0..250
airbags_deployed count: 0..4 in 0..12
parts_to_replace count: 1..20
labour_hours h: 2..40 in 0..400
towing_distance km: 0..60 in 0..1000
claimant_years years: 20..75 whole in 17..100
course_level index: 1..4 whole in 1..8
response_rate %: 20..85
week_of_term week: 1..15 in 1..20
grade_so_far score: 45..90 in 0..100
credits count: 3..10 in 1..60
instructor_years years: 1..30 whole in 0..60
sites_affected count: 1..40
subscribers_affected thousands: 0.1..50
alarm_count count: 1..60
site_years years: 1..20 whole in 0..60
backup_battery_minutes min: 30..240 in 0..1440
seats count: 20..150 in 0..2000
years_licensed years: 1..30 whole in 0..100
prior_violations count: 0..8
days_since_inspection days: 30..700 whole in 0..5000
staff_certified_share %: 30..100
complaints_year count: 0..5
kitchen_area m²: 15..120
cuisine_risk_tier index: 1..3 whole in 1..3
athlete_years years: 17..36 whole in 14..60
training_load_week AU: 1500..4000
match_minutes_month min: 0..450 whole in 0..800
range_of_motion deg: 90..150 in 0..180
swelling_score score: 0..3 in 0..4
strength_deficit %: 0..35
record_sequence index: 1..5000 whole
logger_battery V: 3.3..4.1 in 0..5
entry_delay min: 0..90
audit_score score: 40..95 in 0..100
reading_count count: 5..60
upload_lag h: 0..12 in 0..240
""")

def reading_for(name: str, unit: str) -> Reading | None:
    """The declared range of a library column, or None for a column the library does not know."""
    return READINGS.get((name, unit))


# A stand-in for a column the domain could not name (a DNA wider than every repetition of its columns).
GENERIC_READING = Reading((0.0, 100.0), (0.0, INF), False)

# Level names of the coded categorical columns, commonest first.
LEVELS: dict[str, tuple[str, ...]] = {name: tuple(levels.split()) for name, levels in {
    "destination_port_class": "web mail dns ssh database remote_desktop file_share other",
    "protocol": "tcp udp icmp",
    "recipe_version": "r12 r13 r14 r15 r16 r17",
    "ip_country_mismatch": "no yes",
    "merchant_category": "grocery fuel restaurants electronics travel fashion online_services pharmacy",
    "browser_language_mismatch": "no yes",
    "promo_code_used": "no yes",
    "payment_frequency": "monthly annual quarterly half_yearly",
    "deposit_type": "no_deposit non_refundable refundable",
    "distribution_channel": "online_travel_agent direct corporate tour_operator group",
    "repeat_guest": "no yes",
    "heritage_zone": "no yes",
    "flood_zone": "none low medium high",
    "vehicle_type": "scooter bicycle car motorbike on_foot",
    "parking": "none street garage carport",
    "emergency_admission": "no yes",
    "school_day": "yes no",
    "holiday_week": "no yes",
    "public_holiday": "no yes",
    "road_class": "residential secondary primary trunk motorway service",
    "phone_model": "budget_android midrange_android flagship_android iphone older_iphone tablet",
    "leaf_position": "upper middle lower",
    "cell_technology": "mono_perc poly_bsf mono_bifacial thin_film",
    "tool_chamber": "chamber_a chamber_b chamber_c chamber_d",
    "process_step": "gate_etch contact_etch via_etch metal_etch implant deposition",
    "stain_batch": "batch_01 batch_02 batch_03 batch_04 batch_05 batch_06",
    "scanner_model": "scanner_x1 scanner_x2 scanner_z",
    "outstation": "home_base north_hub south_hub island_field mountain_field",
    "balance_band": "low medium high very_high",
    "channel": "app email branch phone letter",
    "arrival_by_ambulance": "no yes",
    "priority_requested": "normal low high urgent",
    "remote_worker": "no yes",
    "verified_purchase": "yes no",
    "weekend": "no yes",
    "form_version": "v3 v4 v5 v2 v1",
    "site_code": "site_north site_south site_east site_west site_central",
    "operator_shift": "day evening night",
    "sensor_firmware": "fw_2_4 fw_2_5 fw_3_0 fw_2_1",
}.items()}
