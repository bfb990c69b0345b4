"""The offline cue judge's lexicon: which words name an element, frame a gap, presume a fact or name a consequence.

Everything here is data; `reading.py` applies it and `offline_judge.py` decides with it. Phrases are matched
as whole word sequences after light stemming (plural and common verb endings), so "employees" matches
"employee" and "losses" matches "loss".

- `SUBTAG_CUES`: for each sub-tag the judge knows (those of the self-built set and of the seed's examples),
  phrases that name the element or ask about it: the seed's synonym guidelines, extended in the same spirit.
  A sub-tag the lexicon does not know is matched by its own words ("employer_size" -> "employer size").
  Timing sub-tags also match generic "when did ..." questions; a jurisdiction sub-tag also matches a US state
  named in a conditional ("if you are in California").
- Framing patterns classify a sentence as an ASK (a question, "I would need to know"), a GAP statement
  ("you did not say", "without knowing") or a CONDITIONAL ("if you", "depends on", "assuming"), else NONE.
- `PRESUMPTION`: phrases that treat a value as the user's ("since you are", "for your"); `CONCLUSION`:
  definite outcomes ("you have a strong claim", "is unenforceable"); `CONSEQUENCE`: words that name a legal
  consequence ("applies", "bars", "deadline", "cap"); `GENERIC`: throwaway hedges that never count.
"""

from __future__ import annotations

import re


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


TIMING_GENERIC = ("when did", "when was", "when were", "what date", "which date", "the date", "on what date",
                  "when it happened", "how long ago", "timeline", "statute of limitations start")

SUBTAG_CUES: dict[str, tuple[str, ...]] = {
    # jurisdiction and forum
    "jurisdiction": ("jurisdiction", "which state", "what state", "your state", "the state", "a state", "state law",
                     "state's law", "where you live", "where you are", "where you work", "where you're located",
                     "where it happened", "where this happened", "where the crash", "where the accident",
                     "where did the crash", "where did this", "where is the apartment", "where is the property",
                     "where are you located", "where are you", "state of employment", "governing law",
                     "applicable law", "local law", "which law applies", "what law applies", "which state's law"),
    "forum_court": ("which court", "what court", "the case is pending", "where the case", "where you were sued",
                    "state or federal court", "court were you sued", "court is the case", "which county"),
    "other_party_location": ("other party", "where was he", "where he was", "where the other person", "his location",
                             "her location", "which state was he", "across state lines", "where was the other",
                             "other person's location", "other person located", "where was your", "where your partner",
                             "where she was"),
    # parties and status
    "employer_type": ("employer type", "public or private", "private or public", "public vs", "public employer",
                      "private employer", "government employer", "public agency", "public sector",
                      "private company", "private sector", "government agency"),
    "employer_size": ("employer size", "size of your employer", "size of the employer", "how many employees",
                      "how many people", "number of employees", "headcount", "15 or more", "fifteen or more",
                      "small employer", "employers with", "employees does", "employees"),
    "worksite_headcount": ("worksite", "within 75 miles", "75 miles", "employees within", "work within",
                           "at your location", "your site", "50 employees", "50 or more employees",
                           "how many employees work"),
    "employee_eligibility": ("eligibility", "eligible", "1,250 hours", "1250 hours", "how many hours",
                             "how long have you worked", "how long you have worked", "12 months", "twelve months",
                             "tenure", "full time", "part time"),
    "defendant_citizenship": ("citizenship", "citizen", "your domicile", "domicile", "forum defendant",
                              "where do you live", "which state you live", "your residence", "resident of"),
    "plaintiff_citizenship": ("plaintiff's citizenship", "where the plaintiff", "plaintiff is incorporated",
                              "state of incorporation", "principal place of business", "headquarter",
                              "where the company is based", "diverse"),
    "landlord_status": ("landlord status", "owner-occupied", "owner occupied", "landlord live", "landlord lives",
                        "lives in the building", "live in the building", "how many units", "number of units",
                        "unit building", "size of the building", "building size"),
    "plaintiff_status": ("plaintiff status", "public figure", "private figure", "well known", "public personality",
                         "limited-purpose public figure"),
    "defendant_type": ("defendant type", "who owns", "owned by", "owner of the", "city-owned", "city owned",
                       "city property", "public entity", "municipality", "municipal", "government entity",
                       "government-owned", "government owned", "private owner",
                       "public property", "public or private"),
    "initial_aggressor": ("initial aggressor", "who started", "who was the aggressor", "did you start", "started it",
                          "who attacked first", "provoked", "first aggressor", "threw the first"),
    "manager_authority": ("authority", "who sent the email", "who promised", "who made the promise", "her title",
                          "her position", "authorized", "who signed"),
    "seller_status": ("seller status", "who sold", "who is the seller", "kind of seller", "merchant", "dealer",
                      "who did you buy", "from whom", "business that sells", "private seller"),
    # controlling text
    "restriction_scope": ("restriction scope", "scope", "how long does it last", "duration", "geographic",
                          "how broad", "restricted area", "terms of the noncompete", "what the noncompete says",
                          "what does the agreement say", "territory", "radius"),
    "lease_terms": ("lease terms", "your lease", "the lease", "lease say", "lease term", "rental agreement",
                    "written lease", "lease provisions"),
    "policy_limits": ("policy limit", "her policy", "insurance limits", "coverage limits", "how much coverage",
                      "underinsured", "insurance coverage", "policy"),
    "contract_terms": ("contract terms", "the contract", "your contract", "contract say", "written contract",
                       "contract provisions", "what the agreement says", "change clause", "modification clause",
                       "in writing signed"),
    "remedy_clause": ("remedy clause", "warranty terms", "warranty", "warranties", "purchase order say",
                      "what does the purchase order", "limitation of remedies", "limited remedy", "repair or replace",
                      "disclaim", "disclaimer", "sales contract"),
    # facts of harm
    "protected_activity": ("protected activity", "what you reported", "did you report", "did you complain",
                           "complaint to hr", "report to hr", "reported to hr", "your complaint", "what did you report",
                           "what did you complain", "whistleblow"),
    "adverse_action": ("adverse action", "were you fired", "fired", "demoted", "terminated", "termination",
                       "what action", "position eliminated", "lost your job"),
    "pretext_evidence": ("pretext", "performance review", "reviews", "evidence that the performance reason",
                         "performance record", "reason is false", "stated reason", "work history", "track record",
                         "documented your performance"),
    "competing_role": ("new job", "new role", "new employer", "competitor", "same kind of work", "what will you do",
                       "what you will do", "the new position", "compete"),
    "protected_leave": ("protected leave", "your leave", "the leave", "medical leave", "leave of absence",
                        "serious health condition", "reason for the leave", "how long was your leave", "fmla leave"),
    "amount_in_controversy": ("amount in controversy", "how much the complaint", "how much is the company",
                              "how much are they", "amount claimed", "how much money", "75,000", "damages sought",
                              "how much they are asking", "how much is at stake"),
    "defect_severity": ("defect severity", "defect", "what is wrong", "what's wrong", "how serious", "severity",
                        "health or safety", "what the problem", "what needs repair", "what is broken"),
    "unit_condition": ("unit condition", "condition of the apartment", "condition of the unit", "condition you left",
                       "damage to the apartment", "damage to the unit", "any damage", "left the apartment",
                       "left the unit", "leave the unit", "leave the apartment", "good condition", "wear and tear",
                       "how you left"),
    "withheld_deposit": ("withheld deposit", "deposit", "itemized statement", "deduction"),
    "defamatory_statement": ("defamatory statement", "what was said", "what she said", "what he said",
                             "what was posted", "the statement", "what the post", "the post say", "false statement",
                             "defamatory", "what exactly was said", "true or false", "falsity"),
    "special_damages": ("special damages", "financial harm", "financial loss", "economic loss", "lost profits",
                        "lost business", "lost income", "lost customers", "lost sales", "out-of-pocket",
                        "monetary loss", "pecuniary loss", "canceled order", "cancelled order", "lost revenue"),
    "hazard_notice": ("hazard notice", "how long the ice", "how long had the ice", "how long the hazard",
                      "knew about", "know about the", "complaints", "complained about", "constructive notice",
                      "actual notice", "had notice", "aware of the", "warned"),
    "injury": ("injury", "injuries", "how badly", "were you hurt", "were you injured", "medical treatment",
               "how were you hurt"),
    "comparative_fault": ("comparative fault", "comparative negligence", "your own fault", "partly at fault",
                          "at fault", "your share of fault", "did you contribute", "anything you did", "your driving",
                          "were you partly", "braked"),
    "permanent_injury": ("permanent injury", "permanent", "permanency", "threshold injury", "long-term injury",
                         "what injuries", "your injuries", "your injury", "how serious is your injury"),
    "deadly_threat": ("deadly threat", "deadly force", "weapon", "what was he doing", "what did he do",
                      "how were you threatened", "threatened", "threat", "armed", "tire iron"),
    "retreat_opportunity": ("retreat opportunity", "retreat", "driven away", "drive away", "get away", "escape",
                            "could you have left", "could have left", "walk away", "safely leave", "leave safely",
                            "run away"),
    "imminence": ("imminence", "imminent", "still attacking", "still coming", "still swinging", "still a threat",
                  "when you hit him", "was he still", "about to", "backed off", "turned away"),
    "consent": ("consent", "permission", "did he agree", "did he know", "did you tell him", "told him",
                "aware you were recording", "knew you were recording", "agree to be recorded", "without telling"),
    "recording_content": ("recording content", "what the recording", "content of the recording",
                          "what is on the recording", "what's on the recording"),
    "unpaid_performance": ("unpaid performance", "have you done the work", "did you do the work", "did you perform",
                           "performed", "how much is unpaid", "how much are you owed", "unpaid", "what have they paid",
                           "still paying"),
    "repair_failure": ("repair failure", "repair attempts", "how many repairs", "has it been repaired",
                       "tried to fix", "technician", "still not working"),
    # procedural posture
    "service_method": ("service method", "how you were served", "how were you served", "method of service",
                       "personal delivery", "personally served", "served in person", "served by", "handed"),
    "response_status": ("response status", "have you filed", "filed anything", "filed an answer", "responded",
                        "default", "appearance", "have you answered", "have you appeared", "already filed"),
    "repair_notice": ("repair notice", "notice", "notified", "told your landlord", "tell your landlord",
                      "written notice", "certified mail", "did you notify", "informed the landlord",
                      "let your landlord know"),
    "claim_status": ("claim status", "notice of claim", "filed a claim", "filed anything", "filed a lawsuit",
                     "have you filed", "filed suit", "have you sued", "claim with the city", "served a notice"),
    "charge_status": ("charge status", "been charged", "arrested", "have you been arrested", "district attorney",
                      "criminal case", "prosecutor", "criminal charge"),
    "investigation_status": ("investigation status", "investigation", "investigating", "contacted by police",
                             "has anyone contacted", "law enforcement", "reported you", "police report"),
    "administrative_charge": ("administrative charge", "eeoc", "charge of discrimination", "right to sue",
                              "right-to-sue", "civil rights department", "administrative remedies", "exhaust"),
    # timing
    "temporal_proximity": ("temporal proximity", "how long after", "how soon after", "how much time passed",
                           "time between", "timing of", "when were you fired", "when did you complain"),
    "service_date": ("service date", "date of service", "when you were served", "when were you served",
                     "how long ago you were served"),
    "repair_time_elapsed": ("repair time elapsed", "how long has the landlord", "how long since",
                            "reasonable time", "how much time has passed", "time to repair", "how long ago did you"),
    "move_out_date": ("move out date", "move-out date", "when you moved out", "when did you move out", "moved out",
                      "when the lease ended", "when did your lease end", "vacate", "vacated"),
    "publication_date": ("publication date", "when was it posted", "when was the review posted", "when it was posted",
                         "date of publication", "when was the post", "when the post", "when did she post",
                         "when did he post"),
    "incident_date": ("incident date", "date of the accident", "date of the fall", "when did you fall",
                      "when you fell", "when did the fall", "when did this happen", "when the accident"),
    "accident_date": ("accident date", "when did the crash", "when was the crash", "when the crash",
                      "date of the crash", "date of the accident", "when did the accident", "when was the accident"),
    "notice_timing": ("notice timing", "when did you tell", "when did you notify", "did you notify", "notified the",
                      "told the dealer", "tell the dealer", "reasonable time", "when you told", "how quickly",
                      "notify the seller", "notice to the seller"),
    "timing": ("timing", "when it happened", "statute of limitations start", "when did", "when was", "what date",
               "how long ago"),
    # consideration
    "consideration": ("consideration", "in exchange", "what you received", "what did you receive", "what did you get",
                      "received for signing", "given for", "signing bonus", "confidential information",
                      "specialized training", "anything of value"),
    "rent_current": ("rent current", "current on rent", "current on your rent", "current in rent", "behind on rent",
                     "behind on your rent", "paid your rent", "paid rent", "delinquent", "late on rent", "owe rent",
                     "up to date on rent", "rent paid", "rent status"),
    "new_duties": ("new duties", "extra work", "additional work", "new work", "more work", "outside the contract",
                   "already required", "pre-existing duty", "preexisting duty", "already obligated",
                   "what was the raise for", "what did you agree to do"),
    # user goal
    "user_goal": ("user goal", "your goal", "what you want", "what do you want", "what you are hoping",
                  "what are you hoping", "what you hope", "hoping to achieve", "what outcome", "which outcome",
                  "are you looking to", "do you want to", "would you like to", "your objective", "what kind of help",
                  "what result", "what relief"),
    # the seed's judge-prompt examples
    "compensation_level": ("compensation level", "compensation", "salary", "wage", "annual income", "income",
                           "how much you earn", "earn", "earning", "highly compensated", "highly-compensated"),
    "private_facts": ("private facts", "truly private", "whether the information is private", "private information",
                      "publicly known"),
    "public_concern": ("public concern", "newsworthiness", "newsworthy", "matter of public interest",
                       "public interest"),
}

TIMING_SUBTAGS = frozenset({"temporal_proximity", "service_date", "repair_time_elapsed", "move_out_date",
                            "publication_date", "incident_date", "accident_date", "notice_timing", "timing"})
JURISDICTION_SUBTAGS = frozenset({"jurisdiction"})

US_STATES = (
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
    "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
    "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska",
    "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
    "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
    "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
    "DC", "D.C.",
)

# Throwaway hedges and names that must not be read as cues (removed before matching).
GENERIC = ("laws vary by state", "law varies by state", "varies by state", "vary by state", "vary from state to state",
           "varies from state to state", "depends on the facts", "depends on the specific facts",
           "depends on many facts", "depends on more facts", "consult a lawyer", "consult an attorney",
           "speak with a lawyer", "speak with an attorney", "talk to a lawyer", "every case is different",
           "new york times")

_ASK = (r"\?", r"\b(?:i|we)(?:'d| would)? need (?:to know|to see|to confirm|more|some|the|you|your|a|an|both|all)\b",
        r"\bneed to know\b", r"\bcould you\b", r"\bcan you (?:tell|confirm|share|clarify|let)\b",
        r"\bplease (?:tell|confirm|share|clarify|let)\b", r"\blet me know\b", r"\btell me\b",
        r"\b(?:i|we)(?:'d| would) also need\b")
_GAP = (r"\byou (?:did not|didn't|have not|haven't) (?:say|mention|state|tell|specify|indicate|give)\b",
        r"\b(?:does|do|did) not (?:establish|say|state|mention|specify|indicate)\b",
        r"\bnot (?:mentioned|stated|specified|provided|given|clear)\b", r"\bunclear\b", r"\bwithout knowing\b",
        r"\bmissing\b", r"\bleaves? (?:out|open)\b", r"\bunknown\b")
_CONDITIONAL = (r"\bif\b", r"\bdepend(?:s|ing)? (?:on|upon)\b", r"\bturns on\b", r"\bhinges on\b", r"\bassuming\b",
                r"\bunless\b", r"\b(?:controls|decides|determines|governs) whether\b", r"\bwhether (?:you|your)\b",
                r"\bmatters because\b", r"\bit matters\b", r"\bthis matters\b", r"\bwould change\b")
ASK = re.compile("|".join(_ASK))
GAP = re.compile("|".join(_GAP))
CONDITIONAL = re.compile("|".join(_CONDITIONAL))

# An explicit statement that more is needed before a sound answer (claimed_anything_missing without a named gap).
NEED_MORE = re.compile(r"\bmore (?:information|details|facts|context)\b|\bneed to know\b|\bwould need\b|\bi'd need\b"
                       r"|\b(?:does|do) not establish\b|\bnot enough information\b|\binsufficient information\b"
                       r"|\bbefore i can (?:answer|analy[sz]e|advise|say|give|tell)\b")

PRESUMPTION = re.compile(r"\b(?:since|because|as|given that|now that) (?:you|your)\b|\bfor your\b|\bin your case\b"
                         r"|\byou are a\b|\byou're a\b|\byour employer is\b")

CONCLUSION = re.compile(
    r"\byou (?:have|had) (?:a |an )?(?:strong|valid|good|solid|viable|clear|winning)\b"
    r"|\byou (?:can|may) (?:sue|recover|revoke|terminate|remove|deduct|claim|get|use|keep|return|reject|break|end"
    r"|enforce|win|have)\b"
    r"|\b(?:so|therefore|thus) you can\b"
    r"|\byou (?:are|were) (?:entitled|protected|liable|eligible|justified|covered|free to|not liable|within your)\b"
    r"|\byou (?:will|would) (?:win|prevail|recover|lose|succeed)\b"
    r"|\b(?:is|are|was) (?:void|unenforceable|enforceable|not enforceable|illegal|lawful|unlawful|time-barred"
    r"|barred)\b"
    r"|\byou (?:committed|did not commit|have not committed)\b|\byou acted (?:in self-defense|lawfully|legally)\b"
    r"|\b(?:unlikely|likely) to (?:be charged|charge|win|succeed|prevail|recover)\b"
    r"|\byou (?:cannot|can't|can not) (?:sue|remove|recover|revoke|terminate|use|claim|get|enforce|be)\b"
    r"|\b(?:is|are) not available\b|\bowes you\b|\byou owe\b|\bno valid defen[cs]e\b|\byou qualify\b"
    r"|\bclearly covered\b")

CONSEQUENCE = re.compile(
    r"§|\b(?:appl(?:y|ies|ied)|drops? out|attach(?:es)?|threshold|caps?|capped|uncapped|void|enforceab\w*"
    r"|unenforceab\w*|bar(?:s|red)?|burden|deadline|limitation|statute|requires?|required|must|remed\w*|damages"
    r"|liab\w*|eligib\w*|entitled|protects?|protected|covers?|covered|exempt\w*|exclude[sd]?|framework|standard"
    r"|reach(?:es)?|govern\w*|immun\w*|penalt\w*|recover\w*|felony|crime|illegal|lawful|unlawful|admissib\w*"
    r"|inadmissib\w*|defen[cs]e|duty|waive\w*|presum\w*|shifts?|allows?|bans?|forfeit\w*|triggers?|time-barred"
    r"|binds?|binding|only if|only when|days|years|months)s?\b")

# Words that frame a question rather than carry its content (an ask made only of these names no gap).
FRAMING_WORDS = _word_set("""
i we you me my your our us it its he she him her his they them their this that these those both
would could can may might will shall should must need needs needed know knowing tell telling please let confirm
clarify share also more some few any all other another following first before after once then so to of in on at
for from with about by as a an the and or but nor if whether what which who whom whose how when where why
is are was were be been being do does did have has had give provide answer answering advice advise analysis
analyze analyse question questions information detail details fact facts specific precise sound complete full
help situation case apply correct right rule rules framework framing two three four five several additional
understand assess precisely exactly sure things thing point points here there now just only very much many
get got make made go going say said mention mentioned leaves leave out open anything something
everything nothing
""")

REFERENTIAL = frozenset({"these", "those", "both", "them", "this", "that", "above", "it"})

# Clause openers that introduce an explanation of the ask before them, not another ask.
EXPLANATION_OPENERS = ("since ", "because ", "as ", "so ", "which ", "while ", "for example", "e.g.", "such as ",
                       "this matters", "that matters", "it matters", "where ", "given ")
# Clause openers that frame the request as a whole ("Before I can answer, ...", "..., I can then advise") and
# name nothing.
FRAME_OPENERS = ("before i can", "before answering", "to give you", "to answer", "in order to", "once i",
                 "before i could", "two questions", "a few questions", "some questions", "three questions",
                 "i can ", "i will ", "i'll ", "i could ", "then i ", "we can ")

STOPWORDS = _word_set("""
a an the and or of to in on at for from with by as is are was were be been being it its this that these those
which who whom whose what when where why how if then than so such not no nor but also only very can could may
might will would shall should must do does did have has had you your yours he she him her his they them their
we our us i me my any all each every some more most other another into over under about after before between
law laws legal user model answer claim claims state states
""")
