"""Tabular classification domains of the library: coherent columns with units, classes and a host's overview."""

from sandmle.synth.domain_library.base import domain

CLASSIFICATION_DOMAINS = [
    domain(
        "turbine_faults", "energy", "Wind Turbine Gearbox Fault Triage", entity="wind turbine-day", target="fault_class",
        labels="healthy bearing_wear gear_pitting misalignment lubrication_loss rotor_imbalance yaw_drive_fault "
               "pitch_system_fault generator_overheat sensor_drift",
        features="rotor_speed rpm | oil_temperature °C | vibration_rms mm/s | power_output kW | nacelle_yaw_error deg | "
                 "ambient_humidity % | blade_pitch deg | generator_current A | wind_speed m/s | "
                 "bearing_temperature °C | oil_particle_count count | gearbox_pressure bar | tower_sway mm | "
                 "cable_twist turns",
        context="Operators of an onshore wind farm log daily summaries of every turbine's SCADA channels. Maintenance "
                "crews are scarce and a gearbox replacement costs months of revenue, so the operator wants to triage "
                "which fault, if any, each turbine is developing before it trips.",
    ),
    domain(
        "maize_plot_disease", "agriculture", "Maize Plot Disease Survey", entity="surveyed field plot", target="disease",
        labels="healthy common_rust northern_blight grey_leaf_spot streak_virus southern_rust stalk_rot "
               "downy_mildew smut ear_rot",
        features="leaf_chlorophyll SPAD | canopy_temperature °C | soil_moisture % | nitrogen_index ppm | "
                 "plant_height cm | rainfall_week mm | leaf_area_index m²/m² | spore_count count | "
                 "relative_humidity % | days_after_sowing days | lesion_cover % | stand_density plants/m² | "
                 "soil_ph pH | dew_hours h",
        context="An agronomy cooperative surveys member maize plots every week of the growing season. Scouts record "
                "crop and weather measurements but rarely have a plant pathologist with them; identifying the disease "
                "affecting a plot early lets growers target fungicide only where it pays.",
    ),
    domain(
        "spindle_failure", "manufacturing", "CNC Spindle Failure Prediction", entity="machining job", target="failure_mode",
        labels="no_failure tool_wear_failure overstrain heat_dissipation_failure power_failure random_failure "
               "coolant_starvation chatter_damage",
        features="spindle_torque Nm | tool_wear_minutes min | coolant_flow L/min | process_temperature K | "
                 "feed_rate mm/min | chatter_amplitude µm | air_temperature K | motor_load % | "
                 "rotational_speed rpm | axial_force N | tool_changes count | cycle_time s | coolant_concentration %",
        context="A contract machining shop records a sensor summary for every job run on its CNC mills. Predicting "
                "which jobs will end in a failure, and of which kind, avoids scrapped parts and unplanned downtime on "
                "machines that are booked weeks ahead.",
    ),
    domain(
        "loan_outcome", "finance", "Small-Business Loan Outcome", entity="loan application", target="outcome",
        labels="repaid defaulted restructured paid_late written_off refinanced",
        features="annual_revenue kUSD | debt_to_income ratio | years_trading years | credit_lines count | "
                 "loan_amount kUSD | collateral_value kUSD | late_payments count | owner_equity % | "
                 "employees count | interest_rate % | term_months months | cash_reserves kUSD | "
                 "industry_risk_score score",
        context="A community development lender funds small businesses that banks turn down. To price loans fairly "
                "and decide which borrowers need mentoring, it wants to know at application time how a loan is "
                "likely to end.",
    ),
    domain(
        "parcel_delay", "logistics", "Parcel Delivery Delay Band", entity="shipment", target="delay_band",
        labels="on_time one_day_late two_days_late three_to_six_days week_or_more lost_in_transit",
        features="distance_km km | parcel_weight kg | hub_load % | driver_shift_hours h | weather_index score | "
                 "stops_on_route count | handover_count count | dispatch_hour h | parcel_volume L | "
                 "route_congestion score | depot_staffing % | address_quality score | days_to_holiday days",
        context="A regional courier handles a few hundred thousand parcels a day through four hubs. Customers forgive "
                "a late parcel far more easily when they are warned early, so the courier wants to predict, at "
                "dispatch, how late each shipment will be.",
    ),
    domain(
        "broadband_churn", "telecom", "Broadband Subscriber Churn", entity="subscriber-month", target="status",
        labels="retained churned downgraded upgraded paused ported_out",
        features="monthly_charge EUR | tenure_months months | support_calls count | avg_latency ms | "
                 "download_volume GB | outage_minutes min | contract_left months | speed_tier Mbps | "
                 "late_bills count | wifi_complaints count | household_devices count | price_change % change | "
                 "competitor_coverage %",
        context="An internet provider loses a few percent of its subscribers every month. Retention offers are "
                "expensive and only work when sent to the right households, so the marketing team wants to know what "
                "each subscriber will do at the end of the month.",
    ),
    domain(
        "air_quality_alerts", "environment", "Urban Air Quality Alert Level", entity="station-hour", target="alert_level",
        labels="good moderate unhealthy_sensitive unhealthy very_unhealthy hazardous",
        features="no2_level µg/m³ | wind_speed m/s | traffic_volume vehicles/h | air_temperature °C | "
                 "boundary_layer_height m | relative_humidity % | ozone_level µg/m³ | surface_pressure hPa | "
                 "so2_level µg/m³ | co_level mg/m³ | rainfall mm | heating_degree_hours °C·h | construction_sites count",
        context="A city runs a network of low-cost air monitoring stations. It issues public alerts a few hours ahead "
                "when particulate levels are expected to rise, so that schools and care homes can keep windows shut "
                "and people with asthma can plan their day.",
    ),
    domain(
        "pavement_condition", "transport", "Pavement Condition Rating", entity="road segment", target="condition",
        labels="good fair poor very_poor failed",
        features="roughness_index m/km | traffic_load ESAL | pavement_age years | freeze_cycles count | "
                 "drainage_score score | asphalt_thickness mm | truck_share % | years_since_resurfacing years | "
                 "rut_depth mm | crack_density m/m² | subgrade_strength MPa | annual_rainfall mm | speed_limit km/h",
        context="A state highway agency surveys its network with instrumented vans every spring. Budgets allow "
                "treatment of only a fraction of the network, so the agency rates each segment's condition to plan "
                "resurfacing before cheap repairs turn into reconstruction.",
    ),
    domain(
        "sepsis_screening", "health", "ICU Sepsis Onset Screening", entity="ICU patient-window", target="sepsis_status",
        labels="no_sepsis sepsis septic_shock",
        features="heart_rate bpm | respiratory_rate breaths/min | body_temperature °C | systolic_pressure mmHg | "
                 "diastolic_pressure mmHg | mean_arterial_pressure mmHg | oxygen_saturation % | fio2 fraction | "
                 "lactate mmol/L | white_cell_count 10⁹/L | platelets 10⁹/L | creatinine mg/dL | bilirubin mg/dL | "
                 "glucose mg/dL | potassium mmol/L | sodium mmol/L | chloride mmol/L | bicarbonate mmol/L | "
                 "blood_urea_nitrogen mg/dL | hemoglobin g/dL | hematocrit % | ph_arterial pH | paco2 mmHg | "
                 "base_excess mmol/L | calcium mg/dL | magnesium mg/dL | phosphate mg/dL | ptt s | fibrinogen mg/dL | "
                 "troponin ng/mL | hours_since_admission h | patient_years years | urine_output mL/h",
        context="A hospital network wants an early-warning score for sepsis in its intensive care units. Each record "
                "summarises a six-hour window of vital signs and laboratory results for one patient; the clinical "
                "team adjudicated afterwards whether the patient was developing sepsis in that window.",
    ),
    domain(
        "network_intrusion", "cybersecurity", "Network Flow Intrusion Detection", entity="network flow",
        target="traffic_class",
        labels="benign port_scan brute_force denial_of_service botnet data_exfiltration web_attack infiltration",
        features="flow_duration ms | forward_packets count | backward_packets count | forward_bytes B | "
                 "backward_bytes B | packet_length_avg B | packet_length_max B | packet_length_std B | "
                 "inter_arrival_avg ms | inter_arrival_max ms | inter_arrival_std ms | syn_flags count | "
                 "ack_flags count | rst_flags count | psh_flags count | fin_flags count | urg_flags count | "
                 "window_size_init B | active_time_avg ms | idle_time_avg ms | bytes_per_second B/s | "
                 "packets_per_second count/s | header_bytes B | segment_size_avg B | bulk_rate B/s | "
                 "subflow_packets count | destination_port_class category | protocol category | "
                 "distinct_ports_contacted count | down_up_ratio ratio | payload_entropy bits",
        context="A university's security operations centre exports flow records from its campus network. Analysts "
                "cannot inspect every alert, so they want a classifier that separates ordinary traffic from the "
                "attack families seen in the past year's incidents.",
    ),
    domain(
        "wafer_etch_faults", "manufacturing", "Plasma Etch Chamber Fault Detection", entity="wafer run", target="run_result",
        labels="in_spec chamber_drift rf_mismatch gas_leak endpoint_miss wall_contamination",
        features="rf_forward_power W | rf_reflected_power W | chamber_pressure mTorr | throttle_position % | "
                 "chf3_flow sccm | cf4_flow sccm | oxygen_flow sccm | argon_flow sccm | helium_backside_flow sccm | "
                 "electrode_temperature °C | wall_temperature °C | chuck_voltage V | dc_bias V | "
                 "optical_emission_703 counts | optical_emission_777 counts | optical_emission_440 counts | "
                 "endpoint_time s | step_duration s | tuner_load_position % | tuner_tune_position % | "
                 "rf_phase_error deg | vacuum_base_pressure mTorr | lot_wafers count | chamber_hours_since_clean h | "
                 "focus_ring_wear_index index | gas_line_pressure psi | exhaust_temperature °C | "
                 "particle_count count | etch_rate_estimate nm/min | uniformity_estimate % | recipe_version category",
        context="A semiconductor fab logs hundreds of sensor traces for every wafer that passes through its plasma "
                "etch chambers; this dataset keeps one summary value per trace. A faulty run destroys the whole "
                "lot's yield, so engineers want to flag each run's fault as soon as the wafer leaves the chamber.",
    ),
    domain(
        "card_fraud", "finance", "Card-Not-Present Fraud Screening", entity="card transaction", target="verdict",
        labels="genuine fraudulent account_takeover friendly_fraud",
        features="amount EUR | merchant_risk_score score | hour_of_day h | card_age days | transactions_last_hour count | "
                 "transactions_last_day count | amount_last_day EUR | distinct_merchants_week count | "
                 "distance_from_home km | ip_country_mismatch category | device_age days | failed_logins_day count | "
                 "cvv_retries count | shipping_billing_distance km | email_age days | basket_items count | "
                 "average_ticket_90d EUR | chargebacks_year count | velocity_ratio ratio | minutes_since_last min | "
                 "session_duration s | password_resets_month count | card_present_share % | "
                 "new_payee_share % | crossborder_share % | declined_last_week count | customer_tenure months | "
                 "merchant_category category | browser_language_mismatch category | time_on_checkout s | "
                 "promo_code_used category",
        context="An online payment processor screens every card-not-present transaction in under a hundred "
                "milliseconds. Blocking a genuine customer costs as much goodwill as letting fraud through, so the "
                "risk team wants a model that tells the kinds of fraud apart from genuine purchases.",
    ),
    domain(
        "student_dropout", "education", "First-Year Student Outcome", entity="first-year student", target="outcome",
        labels="enrolled dropped_out graduated_early transferred deferred",
        features="admission_grade score | attendance_rate % | credits_attempted count | credits_passed count | "
                 "average_grade score | library_visits count | lms_logins_week count | tuition_paid_on_time % | "
                 "commute_minutes min | scholarship_share % | part_time_hours h/week | entry_age years | "
                 "tutoring_sessions count | assignment_lateness days",
        context="A polytechnic loses too many students in their first year. Its student-success office can offer "
                "tutoring, grants and counselling, but only to a few hundred students per term; it wants to predict "
                "each student's outcome from first-semester records.",
    ),
    domain(
        "policy_lapse", "insurance", "Life Policy Lapse Prediction", entity="life insurance policy", target="policy_state",
        labels="in_force lapsed surrendered paid_up converted",
        features="annual_premium EUR | sum_assured kEUR | policy_duration years | holder_years years | "
                 "missed_premiums count | premium_to_income % | riders count | agent_tenure years | "
                 "interest_rate_change bp | payment_frequency category | surrender_value kEUR | service_contacts count | "
                 "address_changes count",
        context="A life insurer's profits depend on policies staying in force long enough to recover acquisition "
                "costs. The retention team wants to predict what each policyholder will do at the next anniversary, "
                "so that advisers call the ones about to let their cover go.",
    ),
    domain(
        "promo_response", "retail", "Loyalty Promotion Response", entity="loyalty member", target="response",
        labels="ignored redeemed redeemed_and_upsold unsubscribed",
        features="visits_90d count | basket_value_avg EUR | days_since_visit days | discount_share % | "
                 "categories_bought count | email_opens_90d count | app_sessions_90d count | returns_90d count | "
                 "membership_months months | store_distance km | coupon_redemptions_year count | "
                 "private_label_share % | weekend_share %",
        context="A grocery chain mails personalised promotions to its loyalty members every fortnight. Printing and "
                "discount costs add up, so the chain wants to predict how each member will respond to the next "
                "campaign.",
    ),
    domain(
        "water_potability", "public_services", "Drinking Water Compliance Check", entity="tap-water sample",
        target="compliance",
        labels="compliant microbial_failure chemical_failure aesthetic_failure",
        features="ph_value pH | hardness mg/L | total_dissolved_solids mg/L | chloramines mg/L | sulfate mg/L | "
                 "conductivity µS/cm | organic_carbon mg/L | trihalomethanes µg/L | turbidity NTU | "
                 "free_chlorine mg/L | nitrate mg/L | water_age h | pipe_age years | iron_level mg/L",
        context="A municipal water utility samples taps across its distribution network every day. Laboratory "
                "culture results take two days, so the utility wants to predict each sample's compliance from the "
                "instant field measurements and dispatch flushing crews sooner.",
    ),
    domain(
        "athlete_injury", "sports", "Athlete Injury Risk Tier", entity="athlete-week", target="risk_tier",
        labels="low_risk elevated high_risk injured",
        features="acute_load AU | chronic_load AU | sprint_distance m | high_speed_runs count | sleep_hours h | "
                 "resting_heart_rate bpm | hrv_rmssd ms | soreness_score score | match_minutes min | "
                 "travel_hours h | previous_injuries count | jump_height cm | hamstring_force N",
        context="A professional football club tracks training load, wellness questionnaires and force-plate tests "
                "for its squad. The medical staff want a weekly risk tier for each player to adjust training before "
                "a strain becomes a months-long absence.",
    ),
    domain(
        "hotel_cancellation", "hospitality", "Hotel Booking Cancellation", entity="hotel booking", target="booking_outcome",
        labels="checked_in cancelled no_show modified",
        features="lead_time days | nightly_rate EUR | nights count | adults count | children count | "
                 "special_requests count | previous_cancellations count | booking_changes count | "
                 "parking_spaces count | waiting_list_days days | deposit_type category | distribution_channel category | "
                 "repeat_guest category",
        context="A group of city and resort hotels sees a large share of bookings cancelled or never arrive. Revenue "
                "managers overbook to compensate, but walking a guest to another hotel is costly; they want to know, "
                "when a booking is made, how it will end.",
    ),
    domain(
        "bridge_inspection", "construction", "Bridge Deck Condition Rating", entity="bridge", target="deck_rating",
        labels="good satisfactory fair poor critical",
        features="structure_age years | daily_traffic vehicles/day | truck_share % | span_length m | deck_width m | "
                 "deicing_salt_tons t/year | chloride_content kg/m³ | cover_depth mm | crack_width mm | "
                 "years_since_repair years | freeze_thaw_cycles count | joint_leak_score score | "
                 "half_cell_potential mV",
        context="A transport department inspects thousands of bridges on a two-year cycle. Between inspections it "
                "wants to estimate each deck's condition rating from traffic, climate and non-destructive test data "
                "to decide which bridges to inspect first.",
    ),
    domain(
        "dairy_herd_health", "agriculture", "Dairy Cow Health Alert", entity="cow-day", target="health_status",
        labels="healthy mastitis lameness ketosis metritis",
        features="milk_yield L | milk_conductivity mS/cm | somatic_cell_count 10³/mL | rumination_minutes min | "
                 "activity_steps count | lying_hours h | body_temperature °C | feed_intake kg | "
                 "days_in_milk days | parity count | milk_fat % | milk_protein % | body_condition_score score",
        context="A dairy cooperative equips its members' herds with collars and in-line milk sensors. Vets want an "
                "alert that names the likely health problem of a cow days before it shows clinical signs, when "
                "treatment is cheaper and milk losses are still small.",
    ),
    domain(
        "mine_ventilation", "mining", "Underground Mine Ventilation Alarm", entity="sensor station-shift",
        target="alarm_state",
        labels="normal methane_warning airflow_warning carbon_monoxide_warning evacuate",
        features="methane_level % | carbon_monoxide ppm | airflow_velocity m/s | oxygen_level % | "
                 "air_temperature °C | barometric_pressure hPa | fan_power kW | dust_concentration mg/m³ | "
                 "relative_humidity % | active_machines count | blasting_events count | "
                 "distance_to_face m | regulator_opening %",
        context="An underground coal mine monitors its ventilation with fixed sensor stations. Shift supervisors want "
                "each station's alarm state predicted for the coming shift so that they can adjust fans and "
                "regulators before a warning forces work to stop.",
    ),
    domain(
        "battery_health", "transport", "EV Battery Pack State of Health", entity="battery pack", target="health_grade",
        labels="grade_a grade_b grade_c end_of_life",
        features="pack_voltage V | capacity_fade % | internal_resistance mΩ | cell_voltage_spread mV | "
                 "max_cell_temperature °C | fast_charge_share % | full_cycles count | calendar_age months | "
                 "depth_of_discharge_avg % | odometer km | balancing_events count | cold_start_share % | "
                 "coolant_pump_hours h",
        context="A fleet leasing company refurbishes electric vans when their leases end. Each returned pack is "
                "graded to decide whether it goes back on the road, into stationary storage or to recycling; "
                "grading currently needs a day on a test bench.",
    ),
    domain(
        "grid_outage_cause", "energy", "Distribution Grid Outage Cause", entity="outage event", target="cause",
        labels="equipment_failure vegetation weather animal_contact vehicle_accident overload",
        features="customers_affected count | duration_minutes min | wind_gust km/h | rainfall_24h mm | "
                 "lightning_strikes count | feeder_age years | tree_cover % | load_before_outage MW | "
                 "air_temperature °C | recloser_operations count | fault_current kA | hour_of_day h | "
                 "overhead_share %",
        context="A distribution utility must report the cause of every outage to its regulator. Field crews record "
                "the cause only after repairs; predicting it from telemetry at the time of the fault would let the "
                "control room send the right crew first.",
    ),
    domain(
        "vessel_engine", "maritime", "Marine Engine Condition Monitoring", entity="vessel-day", target="engine_state",
        labels="normal fuel_injection_fault turbocharger_fouling cooling_fault scavenge_fire_risk",
        features="engine_speed rpm | shaft_power kW | exhaust_temperature °C | scavenge_pressure bar | "
                 "fuel_rack_position % | cylinder_pressure_max bar | cooling_water_temperature °C | "
                 "lube_oil_pressure bar | turbocharger_speed rpm | sea_water_temperature °C | vessel_speed kn | "
                 "draft m | running_hours_since_overhaul h",
        context="A shipping line streams engine data from its container vessels to a shore-side fleet centre. "
                "Superintendents want each vessel's engine condition classified daily so that spare parts meet the "
                "ship at its next port instead of after a breakdown at sea.",
    ),
    domain(
        "permit_decision", "public_services", "Building Permit Decision", entity="permit application",
        target="decision",
        labels="approved approved_with_conditions refused withdrawn",
        features="project_cost kEUR | floor_area m² | storeys count | plot_area m² | objections count | "
                 "heritage_zone category | flood_zone category | parking_spaces count | review_days days | "
                 "applicant_prior_permits count | height_above_limit m | trees_removed count | "
                 "amendments count",
        context="A city planning department receives thousands of building permit applications a year. It wants to "
                "tell applicants early how their application is likely to be decided and to route the contentious "
                "ones to senior planners.",
    ),
]
