"""Text domains of the library: a free-text column, sector phrases per class (or topic) and numeric context columns."""

from sandmle.synth.domain_library.base import domain

TEXT_DOMAINS = [
    domain(
        "aircraft_maintenance_logs", "aviation", "Aircraft Maintenance Log Routing", entity="technical log entry",
        target="ata_system", modalities=("text",), text_field="log_entry",
        labels="no_fault_found hydraulics avionics powerplant landing_gear cabin_equipment fuel_system",
        features="flight_hours h | flight_cycles count | days_since_check days | aircraft_years years | "
                 "deferred_items count | outstation category | crew_reports_month count | sector_length min",
        vocabulary={
            "no_fault_found": "ops check good; could not reproduce; tested serviceable; no fault found on ground run; "
                              "BITE test passed; reset and monitored",
            "hydraulics": "hydraulic pressure fluctuating; fluid leak at actuator; reservoir quantity low; "
                          "pump case drain; accumulator precharge; seeping from fitting",
            "avionics": "autopilot disconnect; display flicker; radio static on VHF; FMS reboot; "
                        "transponder fail message; weather radar inop",
            "powerplant": "EGT exceedance; engine vibration high; oil consumption; bleed valve fault; "
                          "starter slow to engage; fuel flow fluctuation",
            "landing_gear": "gear unsafe light; brake wear pin; tyre cut found; nose wheel steering; "
                            "shimmy on taxi; strut servicing",
            "cabin_equipment": "galley oven inop; seat recline broken; lavatory flush; reading light; "
                               "overhead bin latch; IFE screen frozen",
            "fuel_system": "fuel imbalance; boost pump low pressure; fuel quantity indication; "
                           "crossfeed valve; refuel panel fault; vent surge tank",
            "common": "reported by crew after landing; found on walkaround; ref AMM task; entered in tech log; "
                      "aircraft released to service; action taken per MEL",
        },
        context="A regional airline's engineers read every technical log entry written by pilots and mechanics and "
                "route it to the right specialist shop. Routing by hand delays dispatch at outstations, so the airline "
                "wants each free-text entry assigned to its aircraft system automatically.",
    ),
    domain(
        "bank_complaints", "finance", "Retail Banking Complaint Routing", entity="customer complaint",
        target="product_issue", modalities=("text",), text_field="complaint_text",
        labels="card_dispute account_access loan_servicing fees_and_charges mortgage transfer_delay fraud_report",
        features="customer_tenure months | products_held count | complaints_prior_year count | balance_band category | "
                 "channel category | days_to_complain days | amount_disputed EUR | customer_years years",
        vocabulary={
            "card_dispute": "charged twice; merchant refused refund; chargeback; item never arrived; "
                            "card statement shows; disputed transaction",
            "account_access": "locked out of online banking; password reset not working; app keeps logging me out; "
                              "verification code never arrives; cannot log in",
            "loan_servicing": "loan payment not applied; payoff amount wrong; extra payment went to interest; "
                              "loan statement; repayment schedule",
            "fees_and_charges": "overdraft fee; monthly maintenance fee; charged a fee without notice; "
                                "foreign transaction fee; fee refund",
            "mortgage": "escrow shortage; mortgage rate; remortgage application; forbearance; "
                        "house purchase delayed; mortgage offer",
            "transfer_delay": "transfer still pending; wire not received; payment stuck; funds on hold; "
                              "international transfer; salary not credited",
            "fraud_report": "did not authorise; someone used my card; scam call; phishing text; "
                            "identity theft; unknown payee added",
            "common": "I have been a customer for years; nobody called me back; I want this resolved; "
                      "spoke to the branch; very disappointed; please escalate",
        },
        context="A retail bank receives thousands of complaints a week through its app, email and branches. "
                "Regulators require each complaint to reach the right team and be answered within deadlines, so the "
                "bank wants every complaint classified by product and issue as it arrives.",
    ),
    domain(
        "clinical_triage_notes", "health", "Emergency Department Triage from Notes", entity="triage note",
        target="acuity", modalities=("text",), text_field="triage_note",
        labels="non_urgent urgent emergent resuscitation",
        features="heart_rate bpm | respiratory_rate breaths/min | systolic_pressure mmHg | oxygen_saturation % | "
                 "body_temperature °C | pain_score score | patient_years years | arrival_by_ambulance category",
        vocabulary={
            "non_urgent": "medication refill; mild rash; sore throat for two days; minor cut; "
                          "requests work note; ankle twisted walking",
            "urgent": "abdominal pain since morning; vomiting and unable to keep fluids; fever with cough; "
                      "laceration needs sutures; back pain radiating",
            "emergent": "chest pain radiating to left arm; sudden weakness one side; shortness of breath at rest; "
                        "severe headache worst ever; altered mental status",
            "resuscitation": "unresponsive on arrival; not breathing; massive bleeding; "
                             "cardiac arrest en route; seizure ongoing; GCS 3",
            "common": "patient states; per family; history of hypertension; denies allergies; "
                      "brought in by partner; onset this morning",
        },
        context="An emergency department wants to support its triage nurses at peak times. From the free-text note "
                "written at the front desk and the first vital signs, each arrival should be assigned an acuity "
                "level so that the sickest patients are seen first.",
    ),
    domain(
        "workplace_incidents", "manufacturing", "Workplace Incident Severity", entity="incident report",
        target="severity", modalities=("text",), text_field="incident_description",
        labels="near_miss first_aid medical_treatment lost_time property_damage environmental_release",
        features="site_headcount count | shift_hour h | worker_tenure months | overtime_hours h | "
                 "days_since_last_incident days | safety_training_hours h | contractor_share % | "
                 "ambient_temperature °C",
        vocabulary={
            "near_miss": "almost struck; narrowly avoided; no one was hurt; load swung close; "
                         "slipped but caught the rail; dropped tool missed",
            "first_aid": "small cut on finger; plaster applied; eye flushed at station; minor burn cooled; "
                         "bruise on forearm; returned to work immediately",
            "medical_treatment": "stitches at clinic; sent for x-ray; prescribed medication; "
                                 "treated by doctor; sprained wrist",
            "lost_time": "unable to return to work; hospitalised overnight; fractured; "
                         "off work for several days; surgery required",
            "property_damage": "forklift hit racking; damaged conveyor; crushed pallet; "
                               "dented door; broke the guard rail",
            "environmental_release": "oil spilled to drain; chemical leak; vapour release; "
                                     "bund overflowed; coolant entered storm water",
            "common": "reported to supervisor; area was cordoned off; occurred during changeover; "
                      "root cause under review; witness statement taken",
        },
        context="A manufacturing group collects incident reports from forty plants in free text. The safety team "
                "must classify every report by severity for regulatory reporting and wants to do it consistently "
                "across plants and languages of writing.",
    ),
    domain(
        "it_helpdesk_tickets", "telecom", "IT Helpdesk Ticket Categorisation", entity="helpdesk ticket",
        target="queue", modalities=("text",), text_field="ticket_text",
        labels="password_reset hardware network software_install email printer vpn security",
        features="requester_tenure months | open_tickets count | department_size count | hour_submitted h | "
                 "device_years years | previous_tickets_month count | priority_requested category | "
                 "remote_worker category",
        vocabulary={
            "password_reset": "forgot my password; account locked; password expired; reset my credentials; "
                              "cannot sign in after change",
            "hardware": "laptop will not turn on; screen cracked; keyboard keys stuck; battery swelling; "
                        "docking station not detected",
            "network": "wifi keeps dropping; no internet in meeting room; slow connection; "
                       "ethernet port dead; cannot reach shared drive",
            "software_install": "need licence for; please install; update failed; "
                                "application crashes on start; missing plugin",
            "email": "mailbox full; emails stuck in outbox; calendar invites not syncing; "
                     "shared mailbox access; out of office",
            "printer": "printer jam; prints blank pages; cannot find printer; toner low; scanner to email",
            "vpn": "vpn disconnects; cannot connect from home; token not accepted; "
                   "vpn client error; remote desktop times out",
            "security": "suspicious email; clicked a link; antivirus alert; unknown login attempt; "
                        "lost company phone",
            "common": "urgent please; since this morning; tried restarting; colleague has the same issue; "
                      "thanks in advance",
        },
        context="A company's IT service desk receives tickets by email and chat in employees' own words. Tickets "
                "sit in a general queue until someone reads them, so the service desk wants each one routed to "
                "the right resolver queue on arrival.",
    ),
    domain(
        "product_reviews", "retail", "Product Review Issue Mining", entity="product review", target="issue",
        modalities=("text",), text_field="review_text",
        labels="satisfied sizing quality_defect delivery_problem not_as_described customer_service",
        features="star_rating score | review_words count | verified_purchase category | price EUR | "
                 "days_since_delivery days | reviewer_reviews count | helpful_votes count | returns_rate %",
        vocabulary={
            "satisfied": "love it; exactly what I wanted; great value; would buy again; works perfectly",
            "sizing": "runs small; too large; had to size up; sleeves too long; fit is off",
            "quality_defect": "broke after a week; stitching came apart; stopped working; cheap plastic; "
                              "paint peeling",
            "delivery_problem": "arrived late; box was crushed; courier left it outside; missing parts in delivery; "
                                "tracking never updated",
            "not_as_described": "colour different from photo; not the model advertised; smaller than pictured; "
                                "description misleading",
            "customer_service": "no reply to my emails; refund still pending; rude on the phone; "
                                "chat bot useless; return label never sent",
            "common": "bought this for my son; ordered last month; compared to others; overall; "
                      "the price was fair",
        },
        context="An online retailer publishes millions of customer reviews. Category managers want each review "
                "tagged with the issue it raises, if any, to find products with fit, quality or fulfilment problems "
                "before returns pile up.",
    ),
    domain(
        "city_service_requests", "public_services", "Citizen Service Request Routing", entity="service request",
        target="department", modalities=("text",), text_field="request_text",
        labels="roads streetlights waste_collection noise graffiti water_leak trees parking",
        features="district index | hour_submitted h | prior_requests_address count | photos_attached count | "
                 "population_density people/km² | days_open_similar days | weekend category | channel category",
        vocabulary={
            "roads": "pothole on; road surface broken; sinkhole; sunken manhole; uneven pavement",
            "streetlights": "street light out; lamp flickering; light on during the day; dark street; "
                            "lamppost damaged",
            "waste_collection": "bins not collected; overflowing bin; fly tipping; recycling missed; "
                                "bulky waste left",
            "noise": "loud music at night; construction noise early; barking dog; party next door; alarm ringing",
            "graffiti": "graffiti on wall; tag on bus shelter; spray paint on; vandalised sign; offensive graffiti",
            "water_leak": "water gushing from; burst pipe; leak in the street; low water pressure; hydrant leaking",
            "trees": "fallen tree; branch hanging over; roots lifting; tree blocking sign; dead tree",
            "parking": "car parked on pavement; blocking my driveway; abandoned vehicle; disabled bay misuse; "
                       "double parked",
            "common": "outside number; near the school; for two weeks now; please send someone; "
                      "reported before",
        },
        context="A city's 311 line receives requests by phone, app and web form. Call handlers type what residents "
                "say, and the city wants each request routed to the responsible department without a second "
                "reading, so that crews receive it the same day.",
    ),
    domain(
        "adjuster_notes_cost", "insurance", "Motor Claim Cost from Adjuster Notes", entity="motor claim",
        target="repair_cost", unit="EUR", modalities=("text",), text_field="adjuster_notes",
        features="vehicle_years years | vehicle_value EUR | impact_speed km/h | airbags_deployed count | "
                 "parts_to_replace count | labour_hours h | towing_distance km | claimant_years years",
        vocabulary={
            "bodywork": "dent in rear door; scratched bumper; panel replacement; respray needed; wing damaged",
            "mechanical": "radiator pushed back; suspension arm bent; engine mounts; wheel alignment; "
                          "gearbox leaking",
            "glass": "windscreen cracked; side window smashed; rear glass; mirror glass; sensor recalibration",
            "structural": "chassis rail buckled; pillar deformed; frame straightening; floor pan damaged; "
                          "likely total loss",
            "common": "photos received; third party admitted liability; inspected at garage; estimate attached; "
                      "customer wants courtesy car",
        },
        context="A motor insurer's adjusters write free-text notes after inspecting each damaged vehicle. The "
                "claims team wants the final repair cost predicted from those notes and the vehicle data to set "
                "reserves and spot claims that should go to an engineer.",
    ),
    domain(
        "course_feedback", "education", "Course Feedback Theme Detection", entity="student comment",
        target="theme", modalities=("text",), text_field="comment",
        labels="positive pace course_materials assessment workload instructor_availability",
        features="course_level index | class_size count | response_rate % | week_of_term week | "
                 "grade_so_far score | credits count | online_share % | instructor_years years",
        vocabulary={
            "positive": "really enjoyed; clear explanations; learned a lot; well organised; engaging lectures",
            "pace": "too fast; rushed through; needed more time on; too slow at the start; skipped topics",
            "course_materials": "slides are outdated; textbook too expensive; recordings missing; "
                                "notes full of errors; readings not available",
            "assessment": "exam did not match; unclear marking; feedback came late; rubric unfair; "
                          "questions on topics not covered",
            "workload": "too many assignments; weekly deadlines clash; hours every week; "
                        "overwhelming workload; group project took",
            "instructor_availability": "office hours cancelled; emails unanswered; hard to reach; "
                                       "no time for questions; teaching assistant absent",
            "common": "this module; in my opinion; compared with other courses; overall; this semester",
        },
        context="A university collects thousands of free-text comments in its end-of-term course surveys. Programme "
                "directors read only summaries, so the quality office wants each comment tagged with the theme it "
                "raises.",
    ),
    domain(
        "outage_tickets", "telecom", "Mobile Network Outage Root Cause", entity="network trouble ticket",
        target="root_cause", modalities=("text",), text_field="ticket_notes",
        labels="power_failure fibre_cut hardware_fault software_bug configuration_error weather_damage",
        features="sites_affected count | subscribers_affected thousands | alarm_count count | "
                 "duration_minutes min | site_years years | backup_battery_minutes min | wind_gust km/h | "
                 "hour_of_day h",
        vocabulary={
            "power_failure": "mains power lost; rectifier alarm; battery discharged; generator failed to start; "
                             "grid outage in area",
            "fibre_cut": "loss of signal on backhaul; excavator damaged cable; OTDR shows break; "
                         "fibre splice; transmission link down",
            "hardware_fault": "radio unit failed; board replaced; fan failure; overheating alarm; power amplifier",
            "software_bug": "after upgrade; process crashed; memory leak; known defect; patch applied",
            "configuration_error": "wrong parameter; change window; rollback restored service; "
                                   "neighbour list; misconfigured VLAN",
            "weather_damage": "storm damage; antenna misaligned by wind; lightning strike; flooding in cabinet; "
                              "ice on mast",
            "common": "field engineer dispatched; customers reporting no signal; service restored at; "
                      "NOC escalated; ticket closed",
        },
        context="A mobile operator's network operations centre closes thousands of trouble tickets a month with "
                "free-text notes. Engineering wants each ticket's root cause classified consistently to see which "
                "failure types to invest against.",
    ),
    domain(
        "food_inspection_notes", "hospitality", "Restaurant Inspection Outcome", entity="inspection report",
        target="inspection_result", modalities=("text",), text_field="inspector_notes",
        labels="pass pass_with_conditions fail",
        features="seats count | years_licensed years | prior_violations count | days_since_inspection days | "
                 "staff_certified_share % | complaints_year count | kitchen_area m² | cuisine_risk_tier index",
        vocabulary={
            "pass": "clean food contact surfaces; temperatures logged correctly; staff wearing hair restraints; "
                    "allergen chart displayed",
            "pass_with_conditions": "hand sink blocked by equipment; date labels missing; "
                                    "thermometer not calibrated; minor cleaning needed",
            "fail": "evidence of rodents; raw chicken above ready to eat; cold holding above limit; "
                    "no hot water; sewage backup",
            "common": "inspector arrived at; manager present; walk-in cooler; prep area; follow-up scheduled",
        },
        context="A county health department inspects every restaurant at least twice a year. Inspectors write "
                "narrative notes on site, and the department wants the outcome predicted from those notes to check "
                "consistency between inspectors.",
    ),
    domain(
        "physio_notes_recovery", "sports", "Injury Time-Loss from Physiotherapy Notes", entity="injury assessment",
        target="days_out", unit="days", modalities=("text",), text_field="assessment_notes",
        features="athlete_years years | previous_injuries count | training_load_week AU | match_minutes_month min | "
                 "pain_score score | range_of_motion deg | swelling_score score | strength_deficit %",
        vocabulary={
            "muscle": "hamstring strain; calf tightness; grade two tear; quad contusion; groin pain on sprinting",
            "ligament": "ankle inversion; medial ligament laxity; ACL suspected; knee gave way; lateral instability",
            "bone": "stress reaction; suspected fracture; bone bruise; tender on palpation of the metatarsal",
            "tendon": "achilles pain in the morning; patellar tendinopathy; tendon thickening; load intolerance",
            "common": "reported after training; MRI requested; ice and compression applied; "
                      "return to play protocol; reassess in two days",
        },
        context="A rugby club's medical team writes assessment notes for every injury. The coaches plan selection "
                "weeks ahead and want each injury's time-loss predicted from the first assessment, before scans and "
                "specialist opinions arrive.",
    ),
]
