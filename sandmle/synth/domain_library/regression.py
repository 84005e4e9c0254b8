"""Tabular regression domains of the library: a target with its unit, coherent columns and a host's overview."""

from sandmle.synth.domain_library.base import domain

REGRESSION_DOMAINS = [
    domain(
        "household_claim_cost", "insurance", "Household Claim Cost Estimation", entity="household claim",
        target="claim_cost", unit="EUR",
        features="property_years years | floor_area m² | rain_24h mm | distance_to_river km | policy_excess EUR | "
                 "prior_claims count | roof_years years | occupants count | building_value kEUR | alarm_score score | "
                 "days_to_report days | contents_sum_insured kEUR | storeys count",
        context="A home insurer must set aside a reserve for every claim the day it is reported. Reserves that are "
                "too low surprise the finance team at year end; reserves that are too high tie up capital. The "
                "claims department wants an estimate of each claim's final cost at first notice of loss.",
    ),
    domain(
        "building_energy_demand", "energy", "Building Energy Demand Forecast", entity="building-day",
        target="energy_use", unit="kWh",
        features="outdoor_temperature °C | occupancy_rate % | floor_space m² | insulation_rating score | "
                 "solar_gain kWh | hvac_setpoint °C | weekday_index index | window_ratio % | equipment_load kW | "
                 "construction_decade decade | wind_chill °C | cloud_cover % | meeting_rooms_booked count",
        context="A facilities company manages a portfolio of office buildings and buys their electricity on the "
                "day-ahead market. Every kilowatt-hour it forecasts wrongly is bought or sold back at a penalty "
                "price, so it wants a forecast of each building's consumption for the next day.",
    ),
    domain(
        "vineyard_yield", "agriculture", "Vineyard Yield Forecast", entity="vineyard block", target="yield_per_hectare",
        unit="t/ha",
        features="growing_degree_days °C·day | vine_years years | canopy_density score | soil_ph pH | irrigation mm | "
                 "frost_days count | bud_count per vine | slope deg | row_spacing m | organic_matter % | "
                 "bunch_weight_sample g | flowering_rain mm | pruning_severity score",
        context="A wine estate plans harvest labour, tank space and grape purchases from a forecast of each block's "
                "yield made at veraison. Counting bunches by hand is slow; the estate wants a model that predicts "
                "yield from its block records and weather station.",
    ),
    domain(
        "delivery_time", "logistics", "Last-Mile Delivery Time", entity="delivery order", target="delivery_minutes",
        unit="min",
        features="route_distance km | items count | order_weight kg | courier_experience months | "
                 "restaurant_prep_time min | traffic_index score | rain_intensity mm/h | orders_in_queue count | "
                 "building_floor count | hour_of_day h | courier_rating score | vehicle_type category",
        context="A food delivery platform promises customers an arrival time when they order. Late orders cost "
                "refunds and early promises cost conversions, so the platform wants a precise estimate of each "
                "order's delivery time.",
    ),
    domain(
        "apartment_rent", "real_estate", "Apartment Rent Estimation", entity="apartment listing", target="monthly_rent",
        unit="EUR",
        features="living_space m² | rooms count | floor_level count | building_year year | distance_to_centre km | "
                 "transit_minutes min | balcony_area m² | energy_rating score | noise_level dB | "
                 "nearby_schools count | service_charge EUR | view_score score | parking category",
        context="A property portal wants to show renters a fair-rent estimate next to every listing and warn "
                "landlords whose asking rent is out of line with comparable flats. Estimates must rest on the listing's "
                "facts alone, since many flats have never been let through the portal before.",
    ),
    domain(
        "hospital_stay", "health", "Hospital Length of Stay", entity="inpatient admission", target="length_of_stay",
        unit="days",
        features="patient_years years | comorbidity_index score | admission_heart_rate bpm | admission_glucose mg/dL | "
                 "hemoglobin g/dL | creatinine mg/dL | prior_admissions_year count | medications count | "
                 "mobility_score score | surgery_minutes min | albumin g/dL | frailty_score score | "
                 "emergency_admission category",
        context="A regional hospital's bed managers plan discharges and elective admissions a week ahead. They want "
                "each new admission's length of stay predicted from the information available on the first day, so that "
                "cancelled operations and corridor beds become the exception.",
    ),
    domain(
        "exam_score", "education", "Final Exam Score Prediction", entity="secondary-school student", target="exam_score",
        unit="points",
        features="study_hours h/week | attendance_rate % | homework_completion % | mock_exam_score points | "
                 "sleep_hours h | commute_minutes min | tutoring_hours h/week | class_size count | "
                 "screen_time h/day | absences count | extracurricular_hours h/week | teacher_experience years",
        context="A school district wants to identify students who are on track to miss their graduation exam while "
                "there is still time to help. It asks for each student's final exam score predicted from mid-year "
                "records.",
    ),
    domain(
        "concrete_strength", "construction", "Concrete Compressive Strength", entity="concrete mix sample",
        target="compressive_strength", unit="MPa",
        features="cement kg/m³ | blast_furnace_slag kg/m³ | fly_ash kg/m³ | water kg/m³ | superplasticizer kg/m³ | "
                 "coarse_aggregate kg/m³ | fine_aggregate kg/m³ | curing_days days | curing_temperature °C | "
                 "air_content % | slump mm | water_cement_ratio ratio",
        context="A ready-mix concrete supplier tests cylinders after 28 days to certify each mix. It wants to "
                "predict compressive strength from the mix design and curing conditions so that it can adjust "
                "recipes before the pour rather than after the test.",
    ),
    domain(
        "transit_ridership", "transport", "Bus Route Daily Ridership", entity="route-day", target="boardings",
        unit="passengers",
        features="service_trips count | route_length km | population_served thousands | employment_density jobs/km² | "
                 "fare EUR | headway_minutes min | air_temperature °C | precipitation mm | school_day category | "
                 "fuel_price EUR/L | events_nearby count | on_time_share %",
        context="A city transit agency reallocates buses between routes every quarter. Planners want a model of "
                "each route's daily boardings to test timetable changes before they are made, instead of learning from "
                "complaints after the new timetable starts.",
    ),
    domain(
        "store_weekly_sales", "retail", "Store Weekly Sales Forecast", entity="store-week", target="weekly_sales",
        unit="kEUR",
        features="store_size m² | promotion_depth % | competitor_distance km | footfall count | markdown_budget kEUR | "
                 "unemployment_rate % | fuel_price EUR/L | air_temperature °C | holiday_week category | "
                 "staff_hours h | local_events count | online_share %",
        context="A home-improvement retailer staffs and stocks its stores from a weekly sales forecast. Over-staffed "
                "stores burn margin and under-stocked ones lose customers to competitors down the road, so the planning "
                "team wants each store's sales for the coming week.",
    ),
    domain(
        "river_discharge", "environment", "River Discharge Forecast", entity="gauge-day", target="discharge",
        unit="m³/s",
        features="rainfall_24h mm | rainfall_72h mm | snow_water_equivalent mm | soil_moisture % | "
                 "air_temperature °C | evapotranspiration mm | upstream_level m | reservoir_release m³/s | "
                 "catchment_area km² | impervious_share % | groundwater_level m | day_of_year day",
        context="A river basin authority issues flood warnings and allocates irrigation water from daily forecasts "
                "of discharge at its gauging stations. Its hydrological model needs days of expert calibration per "
                "catchment, so the authority wants a data-driven forecast of each gauge's discharge for the next day.",
    ),
    domain(
        "player_market_value", "sports", "Footballer Transfer Value", entity="professional footballer",
        target="market_value", unit="MEUR",
        features="player_years years | minutes_played min | goals count | assists count | pass_accuracy % | "
                 "sprints_per_match count | contract_months_left months | international_caps count | "
                 "league_strength score | injury_days days | social_followers millions | duels_won %",
        context="A club's recruitment department screens thousands of players each transfer window. It wants a "
                "consistent estimate of each player's market value before opening negotiations, so that scouts' "
                "enthusiasm does not set the price.",
    ),
    domain(
        "call_centre_volume", "telecom", "Contact Centre Call Volume", entity="half-hour interval", target="calls",
        unit="calls",
        features="interval_of_day index | weekday index | billing_cycle_day day | network_incidents count | "
                 "marketing_emails_sent thousands | app_outage_minutes min | new_contracts count | "
                 "website_visits thousands | queue_callbacks count | public_holiday category | "
                 "price_change_notices thousands | weather_alerts count",
        context="A mobile operator schedules its contact-centre agents in half-hour blocks two weeks ahead. "
                "Under-staffing leaves customers waiting and over-staffing costs money, so workforce planners want "
                "each interval's call volume predicted.",
    ),
    domain(
        "produce_shelf_life", "food", "Fresh Produce Shelf Life", entity="produce pallet", target="shelf_life",
        unit="days",
        features="harvest_to_cooling_hours h | storage_temperature °C | relative_humidity % | ethylene_level ppm | "
                 "firmness N | soluble_solids °Brix | transport_hours h | bruising_score score | "
                 "packaging_oxygen % | pallet_position index | field_temperature °C | pre_cooling_minutes min",
        context="A fresh-produce distributor decides each morning which pallets go to distant stores and which to "
                "nearby ones. It wants each pallet's remaining shelf life predicted from its cold-chain record and "
                "quality checks at the dock.",
    ),
    domain(
        "crop_water_need", "agriculture", "Orchard Irrigation Requirement", entity="orchard block-week",
        target="irrigation_need", unit="mm",
        features="reference_evapotranspiration mm | canopy_cover % | soil_water_deficit mm | rainfall_week mm | "
                 "air_temperature °C | vapour_pressure_deficit kPa | wind_speed m/s | tree_density trees/ha | "
                 "fruit_load score | soil_sand_share % | stem_water_potential MPa | mulch_cover %",
        context="A fruit growers' association shares an irrigation district with strict weekly water quotas. It "
                "wants each orchard block's irrigation requirement for the coming week predicted from sensor and "
                "weather data.",
    ),
]
