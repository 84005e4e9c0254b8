"""Image domains of the library: what a picture shows, ten or more classes, capture metadata and an overview."""

from sandmle.synth.domain_library.base import domain

IMAGE_DOMAINS = [
    domain(
        "road_damage_photos", "transport", "Road Damage Detection from Dashcam Crops", entity="dashcam image crop",
        target="damage_type", modalities=("image",),
        image_subject="a greyscale crop of road surface taken by a windscreen-mounted camera",
        labels="intact longitudinal_crack transverse_crack alligator_crack pothole rutting patch_failure "
               "faded_marking manhole_subsidence debris",
        features="vehicle_speed km/h | camera_height m | sun_elevation deg | exposure_time ms | road_class category | "
                 "gps_accuracy m | frame_blur_score score | pavement_years years",
        context="A municipal roads department mounted cameras on its refuse trucks, which drive every street each "
                "week. Inspectors cannot look at millions of frames, so the department wants each road-surface crop "
                "classified by the kind of damage it shows to schedule repairs.",
    ),
    domain(
        "crop_leaf_images", "agriculture", "Cassava and Maize Leaf Disease Images", entity="leaf photograph",
        target="diagnosis", modalities=("image",),
        image_subject="a greyscale close-up photograph of a single crop leaf taken with a smartphone",
        labels="healthy common_rust northern_blight grey_leaf_spot streak_virus mosaic_virus brown_streak "
               "bacterial_blight nitrogen_deficiency insect_feeding",
        features="phone_model category | capture_hour h | leaf_position category | field_altitude m | "
                 "light_level lux | days_after_planting days | distance_to_leaf cm | focus_score score",
        context="An agricultural extension service lets smallholder farmers photograph a suspicious leaf with a "
                "phone app. Extension officers answer each photo by hand today; the service wants an automatic "
                "first diagnosis so that advice reaches farmers the same day.",
    ),
    domain(
        "solar_el_tiles", "energy", "Solar Cell Electroluminescence Defects", entity="cell tile",
        target="defect", modalities=("image",),
        image_subject="an electroluminescence image of one photovoltaic cell cut from a module scan",
        labels="intact microcrack finger_interruption dark_cell hotspot_trace soldering_fault "
               "potential_induced_degradation snail_trail broken_cell shunted_cell",
        features="module_years years | injection_current A | exposure_time s | camera_temperature °C | "
                 "cell_technology category | string_position index | irradiance_at_scan W/m² | module_power_loss %",
        context="A solar park operator scans its modules at night with an electroluminescence camera, which makes "
                "cracks and inactive areas glow dark. Each scan is cut into cell tiles, and the operator wants every "
                "tile classified by defect to decide which modules to replace under warranty.",
    ),
    domain(
        "weld_radiographs", "manufacturing", "Pipeline Weld Radiograph Inspection", entity="radiograph patch",
        target="weld_finding", modalities=("image",),
        image_subject="a greyscale patch of an X-ray radiograph of a girth weld",
        labels="sound_weld porosity slag_inclusion lack_of_fusion incomplete_penetration crack undercut "
               "burn_through tungsten_inclusion excess_reinforcement",
        features="wall_thickness mm | tube_voltage kV | exposure_charge mAs | film_density density | "
                 "source_to_film_distance mm | welder_experience years | weld_passes count | preheat_temperature °C",
        context="A pipeline contractor radiographs every girth weld before the line is buried. Certified "
                "interpreters review the films, and the contractor wants an automated first read of each patch to "
                "prioritise the films with likely rejectable defects.",
    ),
    domain(
        "wafer_map_defects", "manufacturing", "Wafer Map Defect Pattern Recognition", entity="wafer map",
        target="pattern", modalities=("image",),
        image_subject="a downsampled wafer bin map in which bright pixels are failing dies",
        labels="no_pattern center donut edge_local edge_ring local near_full random scratch cluster",
        features="die_count count | yield_percent % | lot_position index | tool_chamber category | "
                 "probe_card_touchdowns count | test_temperature °C | process_step category | reticle_shots count",
        context="A memory fab probes every wafer and draws a map of failing dies. Spatial patterns on these maps "
                "point to specific process tools, so yield engineers want each map classified by its failure "
                "pattern to route it to the right team.",
    ),
    domain(
        "luggage_xray", "public_services", "Checkpoint X-ray Threat Screening", entity="X-ray scan crop",
        target="content", modalities=("image",),
        image_subject="a greyscale crop of a cabin-bag X-ray scan from an airport security checkpoint",
        labels="clear laptop liquid_container knife scissors battery_pack aerosol power_bank lighter "
               "firearm_component",
        features="bag_density score | belt_speed m/s | scanner_age years | view_angle deg | "
                 "items_in_bag count | clutter_score score | operator_shift_hour h | lane_throughput bags/h",
        context="An airport authority wants to assist checkpoint officers, who look at a bag image every few "
                "seconds for hours. Each crop of a cabin-bag scan should be classified by the object it contains so "
                "that bags with prohibited items are flagged for a second look.",
    ),
    domain(
        "land_cover_tiles", "environment", "Satellite Land Cover Classification", entity="satellite image tile",
        target="land_cover", modalities=("image",),
        image_subject="a single-band satellite image tile at ten metres per pixel",
        labels="annual_crop forest herbaceous_vegetation highway industrial pasture permanent_crop residential "
               "river sea_lake",
        features="cloud_fraction % | sun_zenith deg | acquisition_month month | elevation m | "
                 "view_zenith deg | revisit_days days | latitude deg | atmospheric_haze score",
        context="An environmental agency tracks land-use change across the country from free satellite imagery. "
                "Its analysts label a few tiles by hand each year; the agency wants every tile classified "
                "automatically so that changes can be mapped each season.",
    ),
    domain(
        "blood_smear_cells", "health", "Peripheral Blood Cell Classification", entity="cell image",
        target="cell_type", modalities=("image",),
        image_subject="a greyscale microscope image of one stained cell from a peripheral blood smear",
        labels="neutrophil lymphocyte monocyte eosinophil basophil platelet_clump erythroblast "
               "immature_granulocyte band_cell smudge_cell",
        features="stain_batch category | magnification x | slide_thickness µm | focus_score score | "
                 "patient_years years | scanner_model category | illumination_level lux | field_index index",
        context="A haematology laboratory digitises blood smears and counts cell types for every complete blood "
                "count with a differential. Technologists confirm each count by eye; the laboratory wants each "
                "segmented cell image classified automatically so that they only review the uncertain ones.",
    ),
    domain(
        "fabric_defects", "manufacturing", "Woven Fabric Defect Inspection", entity="fabric patch",
        target="defect_type", modalities=("image",),
        image_subject="a greyscale line-scan camera patch of woven fabric on the inspection table",
        labels="defect_free broken_end broken_pick hole oil_stain slub thick_place thin_place knot "
               "reed_mark",
        features="loom_speed picks/min | yarn_count tex | warp_tension cN | humidity % | loom_years years | "
                 "shift_index index | fabric_width cm | inspection_speed m/min",
        context="A weaving mill inspects every metre of cloth before it ships. Human inspectors miss defects late "
                "in a shift, so the mill wants camera patches classified by defect type to grade each roll and "
                "trace defects back to the loom.",
    ),
]
