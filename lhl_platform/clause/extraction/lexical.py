"""`lexical`: an offline clause extractor driven by cue patterns.

Algorithm. The contract is cut into sentences. For each clause type a table of weighted regular
expressions (cue phrases from the type's definition, plus negative cues for look-alikes, e.g. a
consequential-damages exclusion is not a Cap On Liability) scores every sentence; the best sentence
is returned verbatim when its score reaches the type's threshold, otherwise the type is *not
present*. Document Name, Parties and the two dates use small targeted patterns (title line, "between
X and Y", date after "dated"/"effective"). It has no access to the answer key and makes real errors:
it misses clauses phrased without its cues, fires on sentences that merely mention a cue, and quotes
whole sentences where the annotation is a sub-span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lhl_platform.clause.extraction.task import ClauseAnswer, ExtractionOutput, ExtractTask

NAME = "lexical"
VERSION = "lexical-v1"

# Sentence ends: . ; : before a capital or quote, except after common abbreviations (Inc., Corp., ...).
_SENTENCE_END = re.compile(r"(?<=[.;:])(?<!Inc\.)(?<!Corp\.)(?<!Ltd\.)(?<!Co\.)(?<!No\.)(?<!Sec\.)\s+(?=[A-Z\"])|\n+")
_DATE = (r"(?:(?:January|February|March|April|May|June|July|August|September|October|November|December)"
         r"\s+\d{1,2},?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+day\s+of\s+\w+,?\s+\d{4}|\d{1,2}/\d{1,2}/\d{2,4})")

Cue = tuple[str, float]

# Weighted cues per clause type; a sentence's score is the sum of the weights of the cues it matches.
CUES: dict[str, list[Cue]] = {
    "Expiration Date": [(r"\bexpire|\bexpiration\b", 2), (r"\b(initial )?term (is|of|ends|runs)\b", 1.5),
                        (r"\b(ends|end) on\b|\buntil\b|\bcontinue[s]? for\b|remains? in (force|effect)", 1.2),
                        (r"\b(years?|months?)\b", 0.5), (r"\brenew", -1.5)],
    "Renewal Term": [(r"\brenew(al|s|ed)?\b", 2.5), (r"\bsuccessive\b|\badditional term", 1.5),
                     (r"\bautomatic(ally)?\b", 0.8), (r"non-renewal", -1)],
    "Notice Period To Terminate Renewal": [(r"non-renewal|not to renew|notice of (non-?)?renewal", 3),
                                           (r"\b(days|months)\b.{0,40}\b(before|prior to) the end\b", 2)],
    "Governing Law": [(r"\bgoverned by\b|\bgovern(s)? this agreement\b", 3), (r"\blaws? of\b", 1.5),
                      (r"\bgoverning law\b", 1)],
    "Most Favored Nation": [(r"most favou?red|\bmfn\b", 3),
                            (r"\b(lower|better|more favou?rable|higher) (prices?|terms|commission|rates?)\b", 1.5),
                            (r"\bsame (lower )?(prices?|rate|terms)\b", 1.5), (r"\bany other\b", 0.7)],
    "Competitive Restriction Exception": [(r"\bexcept\b.{0,60}\b(may continue|may (distribute|sell|carry))", 3),
                                          (r"\bnotwithstanding\b.{0,80}\bcompet", 2)],
    "Non-Compete": [(r"\bcompet(e|es|ing|itive|itor)\b", 2),
                    (r"\bshall not\b.{0,80}\b(own|operate|distribute|engage)", 1.5),
                    (r"\bmiles\b|\bterritory\b", 0.7), (r"\bsolicit\b", -1)],
    "Exclusivity": [(r"\bexclusive(ly)?\b", 2), (r"\bshall not (appoint|endorse|promote)\b|\bother than\b", 1.2),
                    (r"\bnon-exclusive\b", -3)],
    "No-Solicit Of Customers": [(r"\bsolicit\b.{0,60}\bcustomers?\b|\binduce\b.{0,60}\bcustomers?\b", 3),
                                (r"\bcustomers?\b", 0.5)],
    "No-Solicit Of Employees": [(r"\bsolicit\b.{0,60}\bemploy(ee|ees|ment)\b|\bhire\b", 3),
                                (r"\bemployees?\b", 0.5)],
    "Non-Disparagement": [(r"\bdisparag", 3.5)],
    "Termination For Convenience": [(r"\bfor convenience\b|\bwithout cause\b|\bat any time\b", 2.5),
                                    (r"\bterminate\b", 1), (r"\bbreach|insolven", -1.5)],
    "Rofr/Rofo/Rofn": [(r"right of first (refusal|offer|negotiation)", 3.5), (r"\bfirst offer\b", 2.5)],
    "Change Of Control": [(r"change (of|in) control|\bmerger\b|\bacquisition\b", 3)],
    "Anti-Assignment": [(r"\bassign(ed|ment)?\b", 1.8), (r"\bconsent\b", 1.2), (r"\bshall not|may not\b", 0.8),
                        (r"\bhereby assigns?\b|title and interest", -3)],
    "Revenue/Profit Sharing": [(r"\broyalt(y|ies)\b|\bcommission\b|\bmargin\b|revenue|profit", 2),
                               (r"\bpercent|%", 1)],
    "Price Restrictions": [(r"\b(increase|adjust)\w* (the )?prices?\b|\bprices? (are|is) fixed\b", 3),
                           (r"\bprices?\b", 0.8)],
    "Minimum Commitment": [(r"\b(not less than|at least|minimum)\b", 1.5), (r"\b(purchase|order)\b", 1.5),
                           (r"\beach (contract|calendar) year\b|\bannual", 0.8)],
    "Volume Restriction": [(r"\bnot (be )?(obliged|required) to (supply|produce)\b|\bmore than\b", 2),
                           (r"\bquantit(y|ies)|capsules|units|volume", 1)],
    "Ip Ownership Assignment": [(r"\bhereby assigns?\b|all right, title and interest|sole property", 3),
                                (r"\binvention|formulation|improvement|intellectual property", 0.8)],
    "Joint Ip Ownership": [(r"\bjointly owned\b|\bowned jointly\b|\bjoint owner", 3.5)],
    "License Grant": [(r"\bgrants?\b.{0,80}\blicen[cs]e\b", 3), (r"\blicen[cs]e\b", 0.8),
                      (r"\bperpetual|irrevocable", -0.5)],
    "Non-Transferable License": [(r"non-?transferable|not be transferred|may not be transferred", 3),
                                 (r"\bsublicens", 1)],
    "Affiliate License-Licensor": [(r"\b(its|licensor's|nimbus's) affiliates?\b.{0,80}\bgrant\b", 3)],
    "Affiliate License-Licensee": [(r"\bpermit its affiliates\b|\baffiliates? (of licensee )?(may|to) use\b", 3)],
    "Unlimited/All-You-Can-Eat-License": [(r"\bunlimited\b|\ball you can eat\b", 3)],
    "Irrevocable Or Perpetual License": [(r"\bperpetual\b|\birrevocable\b", 3)],
    "Source Code Escrow": [(r"\bescrow\b", 3), (r"\bsource code\b", 1.5)],
    "Post-Termination Services": [(r"\b(after|upon) (any )?(expiration or )?termination\b", 2),
                                  (r"\btransition|\bmigrat|continue to", 1.5)],
    "Audit Rights": [(r"\baudit\b", 2.5), (r"\binspect\b|\bbooks and records\b", 1)],
    "Uncapped Liability": [(r"\blimitations? of liability\b.{0,60}\bshall not apply|\bdoes not apply\b", 3),
                           (r"\bgross negligence|willful", 1.2)],
    "Cap On Liability": [(r"\bliability\b", 1.5), (r"\bshall not exceed\b|\blimited to\b|\bmaximum\b", 2),
                         (r"\bconsequential|incidental|indirect\b", -2)],
    "Liquidated Damages": [(r"\bliquidated damages\b", 3.5), (r"\bservice credits?\b|\bpenalt", 1)],
    "Warranty Duration": [(r"\bwarrant(s|y)\b", 2), (r"\b(days|months|years)\b", 1.2)],
    "Insurance": [(r"\binsurance\b|\binsured\b", 3), (r"\$[\d,]+", 0.5)],
    "Covenant Not To Sue": [(r"\bnot (to )?(sue|bring any claim|assert)\b|\bcovenants? not to sue\b", 3.5)],
    "Third Party Beneficiary": [(r"third[- ]party beneficiar", 3), (r"\bconfers? any right\b", -2.5)],
}
THRESHOLD: dict[str, float] = {name: 3.0 for name in CUES}
THRESHOLD.update({"Expiration Date": 3.2, "Minimum Commitment": 3.3, "Volume Restriction": 3.0,
                  "Anti-Assignment": 3.5, "Cap On Liability": 3.5, "Post-Termination Services": 3.5,
                  "Warranty Duration": 3.2, "Exclusivity": 3.2})


@dataclass(frozen=True)
class _Sentence:
    text: str
    index: int


def sentences(text: str) -> list[_Sentence]:
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    kept = [p for p in parts if len(p) > 2]
    return [_Sentence(re.sub(r"^\d+(\.\d+)*\s+", "", p), i) for i, p in enumerate(kept)]


def _score(sentence: str, cues: list[Cue]) -> float:
    return sum(w for pattern, w in cues if re.search(pattern, sentence, flags=re.IGNORECASE))


def _document_name(sents: list[_Sentence]) -> list[str]:
    for s in sents[:3]:
        if s.text.isupper() and re.search(r"AGREEMENT|CONTRACT|LICENSE|LEASE", s.text):
            return [s.text.strip()]
    return []


def _parties(sents: list[_Sentence]) -> list[str]:
    for s in sents[:6]:
        m = re.search(r"\bbetween\s+(.+?)\s+and\s+(.+?)(?:\.$|$)", s.text, flags=re.IGNORECASE)
        if m:
            names = []
            for chunk in m.groups():
                name = re.split(r'\s*\(|,\s+an?\s|,\s*$', chunk, maxsplit=1)[0].strip(" ,")
                if name:
                    names.append(name)
            return names
    return []


def _date_near(sents: list[_Sentence], cue: str, limit: int) -> list[str]:
    for s in sents[:limit]:
        m = re.search(rf"{cue}[^.]{{0,40}}?(?P<date>{_DATE})", s.text, flags=re.IGNORECASE)
        if m:
            return [m.group("date")]
    return []


def extract_clauses(task: ExtractTask) -> ExtractionOutput:
    sents = sentences(task.contract_text)
    answers: list[ClauseAnswer] = []
    for clause in task.clause_types:
        quotes: list[str]
        if clause == "Document Name":
            quotes = _document_name(sents)
        elif clause == "Parties":
            quotes = _parties(sents)
        elif clause == "Agreement Date":
            quotes = _date_near(sents, r"\b(dated|entered into on|made on|made as of|entered into as of|as of)\b", 6)
        elif clause == "Effective Date":
            quotes = _date_near(sents, r"\b(effective|commence|begins|start)\w*\b", len(sents))
        else:
            cues = CUES.get(clause, [])
            best = max(sents, key=lambda s: _score(s.text, cues), default=None)
            quotes = [best.text] if best is not None and _score(best.text, cues) >= THRESHOLD[clause] else []
        answers.append(ClauseAnswer(clause_type=clause, present=bool(quotes), quotes=quotes))
    return ExtractionOutput(clauses=answers)
