"""Per-sector vocabularies for generated free text: column names, subjects, key phrases and word lexicons.

A sector's key phrases (`cues`) are what phrase rules look for; its `lexicons` are the word lists that count rules
count. Within a sector, cue words, lexicon words and subjects do not overlap, so a rule reads only what it names.
Sectors not listed here get the generic vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NEGATIONS = ("no", "without", "not")


@dataclass(frozen=True)
class Vocabulary:
    sector: str
    names: tuple[str, ...]  # candidate names of the text column, in order of preference
    writer: str  # who writes the notes, with its article
    subjects: tuple[str, ...]
    cues: tuple[str, ...]  # two-word key phrases
    lexicons: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> single words usable after "looked"
    fillers: tuple[str, ...] = ()  # phrases that say nothing about the label (a domain's "common" phrases)
    clause_cues: bool = False  # cues are whole clauses ("charged twice"), not noun phrases ("oil leak")


def _vocabulary(sector, names, writer, subjects, cues, **lexicons) -> Vocabulary:
    return Vocabulary(sector, tuple(names.split()), writer, tuple(subjects.split(",")), tuple(cues.split(",")),
                      {name: tuple(words.split()) for name, words in lexicons.items()})


VOCABULARIES = {v.sector: v for v in [
    _vocabulary("energy", "technician_note field_report", "the technician",
                "the gearbox,the rotor,the inverter,the nacelle,the transformer,the cable run",
                "oil leak,grinding noise,loose bolt,blade crack,yaw drift,hot bearing,tripped breaker,ice buildup,"
                "pitch fault,arc flash,corroded terminal,sensor dropout",
                alarm="overheating worn rusty unstable faulty vibrating smoking degraded",
                routine="stable clean nominal steady tidy calibrated balanced sealed",
                weather="windy icy stormy humid foggy gusty frosty wet"),
    _vocabulary("agriculture", "scout_note field_observation", "the scout",
                "the canopy,the lower leaves,the seedlings,the furrow,the stalks,the root zone",
                "yellow spots,leaf curl,rust pustules,aphid colony,burnt tips,white mould,stem lesions,waterlogged soil,"
                "frost damage,bird damage,weed pressure,bare patches",
                stress="wilted stunted yellowed brittle scorched curled spotted drooping",
                vigour="lush green upright vigorous dense healthy uniform sturdy",
                weather="arid wet muddy windy hot humid cool dusty"),
    _vocabulary("manufacturing", "operator_log shift_note", "the operator",
                "the spindle,the fixture,the coolant line,the conveyor,the press,the tool holder",
                "chatter marks,burr formation,coolant leak,tool breakage,surface scratches,dimension drift,motor stall,"
                "belt slip,chip buildup,thermal drift,jammed feeder,misaligned jaw",
                defect="scratched warped dented chipped rough misshapen porous cracked",
                nominal="smooth precise aligned polished consistent accurate flat true",
                pace="rushed delayed slow idle overloaded backlogged paused hurried"),
    _vocabulary("finance", "analyst_comment application_summary", "the analyst",
                "the applicant,the business,the account,the cash flow,the balance sheet,the guarantor",
                "missed payment,tax lien,new contract,bounced cheque,late filing,rising arrears,sole supplier,"
                "seasonal dip,pending lawsuit,strong backlog,ownership change,credit freeze",
                risk="overdue volatile strained leveraged insolvent delinquent shaky uncertain",
                strength="profitable solvent liquid growing diversified reliable prudent secured",
                tone="cautious optimistic guarded upbeat neutral hesitant confident wary"),
    _vocabulary("logistics", "dispatch_note courier_remark", "the dispatcher",
                "the parcel,the van,the depot,the pallet,the route,the consignee",
                "unclear address,customs hold,crushed box,missed slot,road closure,scanner outage,wrong label,"
                "locked gate,sorting backlog,vehicle breakdown,refused signature,weather delay",
                trouble="late stuck misrouted lost held dented rerouted returned",
                smooth="prompt delivered scanned sorted dispatched collected tracked loaded",
                load="heavy bulky fragile oversized light compact stacked wrapped"),
    _vocabulary("telecom", "support_transcript ticket_summary", "the agent",
                "the router,the line,the subscriber,the modem,the app,the invoice",
                "dropped calls,slow speeds,billing error,weak signal,frequent outages,port request,price increase,"
                "contract renewal,competitor offer,router reboot,fibre upgrade,roaming charge",
                frustration="angry annoyed frustrated unhappy disappointed furious irritated impatient",
                satisfaction="happy pleased satisfied grateful content impressed loyal relieved",
                technical="intermittent buffering lagging offline throttled unstable patchy congested"),
    _vocabulary("environment", "station_remark inspector_note", "the inspector",
                "the monitor,the intake,the filter,the river bank,the sensor mast,the sampling pump",
                "smoke plume,dust cloud,chemical odour,traffic jam,construction work,burning waste,algae bloom,"
                "oil sheen,fish kill,pollen peak,calm air,temperature inversion",
                pollution="hazy smoggy murky dusty sooty foul turbid acrid",
                clean="clear fresh crisp breezy clean pristine bright transparent",
                weather="still windy rainy humid dry sunny overcast cold"),
    _vocabulary("transport", "survey_comment crew_remark", "the surveyor",
                "the carriageway,the shoulder,the joint,the kerb,the drain,the overlay",
                "alligator cracking,edge break,standing water,pothole cluster,rut depth,loose gravel,patch failure,"
                "frost heave,joint spalling,faded marking,root heave,raised manhole",
                damage="cracked crumbling rutted broken sunken uneven potholed ravelled",
                sound="smooth intact sound level resurfaced sealed firm even",
                traffic="busy congested heavy quiet light gridlocked steady sparse"),
    _vocabulary("insurance", "claim_narrative adjuster_note", "the adjuster",
                "the claimant,the kitchen,the roof,the basement,the garage,the ceiling",
                "burst pipe,storm damage,water ingress,forced entry,kitchen fire,fallen tree,roof leak,sewer backup,"
                "mould growth,stolen bicycle,hail dents,power surge",
                severity="extensive severe soaked destroyed gutted collapsed flooded charred",
                minor="minor superficial small limited cosmetic partial contained slight",
                doubt="inconsistent vague disputed unclear contradictory late undocumented suspicious"),
    _vocabulary("healthcare", "triage_note visit_summary", "the nurse",
                "the patient,the wound,the chest,the abdomen,the airway,the skin",
                "breathing difficulty,chest pain,high fever,persistent cough,skin rash,dizzy spells,night sweats,"
                "swollen ankles,blurred vision,weight loss,irregular pulse,sore throat",
                acute="severe acute worsening sudden sharp unbearable escalating critical",
                stable="stable mild improving settled comfortable alert calm recovered",
                fatigue="tired weak exhausted drowsy sluggish listless pale fatigued"),
    _vocabulary("retail", "customer_review product_feedback", "the customer",
                "the product,the package,the fit,the fabric,the order,the checkout",
                "broken seal,wrong size,fast shipping,great value,poor stitching,missing parts,easy setup,"
                "faded colour,refund request,gift wrapping,dead battery,loose thread",
                praise="excellent lovely perfect sturdy comfortable gorgeous handy superb",
                complaint="flimsy cheap faulty disappointing useless awful overpriced tacky",
                delivery="quick early late delayed tracked dispatched prompt slow"),
    _vocabulary("hospitality", "guest_comment stay_review", "the guest",
                "the room,the lobby,the breakfast,the pool,the staff,the bathroom",
                "noisy neighbours,late checkout,room upgrade,broken shower,friendly staff,cold breakfast,sea view,"
                "dirty towels,parking fee,long queue,free drinks,thin walls",
                delight="spotless cosy charming welcoming spacious delightful relaxing stylish",
                letdown="grubby cramped musty tired rude shabby stuffy dated",
                value="pricey affordable reasonable expensive cheap fair steep generous"),
    _vocabulary("software", "incident_report ticket_text", "the engineer",
                "the service,the database,the deploy,the cache,the login page,the queue",
                "memory leak,timeout errors,disk full,failed deploy,certificate expired,slow queries,config drift,"
                "rate limit,stale cache,dns failure,null pointer,rollback request",
                outage="down unreachable failing crashing erroring stalled degraded broken",
                healthy="green passing healthy responsive fast stable idle deployed",
                urgency="urgent blocking critical escalated paging pressing immediate severe"),
    _vocabulary("aviation", "tech_log crew_report", "the mechanic",
                "the aircraft,the cockpit,the engine cowl,the cabin,the wheel well,the avionics bay",
                "burning smell,fluid stain,warning light,loose panel,bird strike,tyre wear,hard landing,static noise,"
                "stuck latch,cracked lens,chafed wire,frozen screen",
                concern="intermittent inoperative leaking worn frayed corroded sticking noisy",
                normal="serviceable secure normal verified released airworthy operational intact",
                timing="delayed deferred overnight urgent scheduled grounded rushed routine"),
    _vocabulary("public_services", "request_text caseworker_note", "the caller",
                "the street,the bin,the park,the lamp post,the pavement,the bus stop",
                "overflowing bin,broken streetlight,fly tipping,blocked drain,loud music,graffiti tag,"
                "dog fouling,cracked pavement,abandoned trolley,dead animal,fallen branch,leaking hydrant",
                nuisance="filthy smelly dangerous noisy unsafe hazardous grimy littered",
                calm="tidy safe quiet repaired clear cleaned lit fixed",
                urgency="urgent repeated ongoing daily nightly recurring immediate persistent"),
    _vocabulary("education", "student_comment survey_response", "the student",
                "the module,the lecture,the seminar,the lab,the course page,the reading list",
                "group work,guest speaker,practice quiz,live coding,weekly reading,lab report,past papers,"
                "study guide,field trip,peer review,mock exam,case study",
                positive="engaging clear helpful inspiring useful organised interesting supportive",
                negative="confusing boring stressful unclear disorganised dull overwhelming pointless",
                effort="demanding heavy light intense manageable tiring relentless easy"),
    _vocabulary("sports", "physio_note session_summary", "the physio",
                "the knee,the hamstring,the shoulder,the ankle,the lower back,the calf",
                "sharp twinge,full squat,ice bath,single leg,sprint drill,jump landing,range test,"
                "night pain,return run,taping applied,cross training,strength block",
                pain="painful stiff swollen tender aching sore inflamed tight",
                progress="stronger mobile stable loose pain-free improving fluent balanced",
                load="light moderate heavy intense reduced progressive maximal partial"),
    _vocabulary("real_estate", "listing_text agent_remark", "the agent",
                "the flat,the garden,the kitchen,the roof,the hallway,the neighbourhood",
                "new boiler,mould patch,south aspect,period features,busy road,quiet street,worn carpets,"
                "open plan,good schools,street parking,loft conversion,subsidence risk",
                appeal="bright spacious charming modern renovated stylish airy elegant",
                concern="damp dated cramped noisy tired neglected dark draughty",
                location="central suburban rural leafy urban coastal remote connected"),
]}

GENERIC = _vocabulary(
    "generic", "free_text_note record_comment", "the reviewer",
    "the item,the record,the case,the unit,the site,the batch",
    "odd pattern,repeat issue,urgent request,follow up,missing data,manual check,second opinion,"
    "positive outcome,overdue update,upward trend,open question,known problem",
    concern="unusual poor late risky unclear weak irregular problematic",
    approval="good clear solid timely strong regular fine reliable",
    activity="busy quiet active idle hectic slow steady brisk")

# Sector names vary across domain libraries; map words that appear in them to the vocabularies above.
ALIASES = {"health": "healthcare", "medic": "healthcare", "clinic": "healthcare", "hospital": "healthcare",
           "bank": "finance", "credit": "finance", "lend": "finance", "shop": "retail", "commerce": "retail",
           "ecommerce": "retail", "hotel": "hospitality", "travel": "hospitality", "tourism": "hospitality", "maritime": "logistics",
           "food": "hospitality", "it": "software", "tech": "software", "cloud": "software", "cyber": "software",
           "property": "real_estate", "public": "public_services", "school": "education", "university": "education",
           "sport": "sports", "fitness": "sports", "housing": "real_estate", "construction": "real_estate", "farm": "agriculture",
           "crop": "agriculture", "factory": "manufacturing", "industry": "manufacturing", "mining": "manufacturing",
           "shipping": "logistics", "supply": "logistics", "airline": "aviation", "rail": "transport",
           "road": "transport", "mobility": "transport", "climate": "environment", "water": "environment",
           "utilit": "energy", "power": "energy", "network": "telecom", "media": "telecom"}


def vocabulary_for(sector: str) -> Vocabulary:
    """The vocabulary of a sector, by name or by an alias found in it; the generic one otherwise."""
    key = (sector or "").lower().replace("-", "_").replace(" ", "_")
    if key in VOCABULARIES:
        return VOCABULARIES[key]
    for alias, name in ALIASES.items():
        if any(part == alias or (len(alias) > 3 and part.startswith(alias)) for part in key.split("_")):
            return VOCABULARIES[name]
    return GENERIC


def all_vocabularies() -> list[Vocabulary]:
    return [*VOCABULARIES.values(), GENERIC]
