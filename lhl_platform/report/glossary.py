"""The terms a report uses, defined on the page that uses them: a short glossary under the verdict of every
Markdown and HTML report, holding exactly the terms that page shows, and a tooltip on each HTML column header
that is one. The definitions are docs/method.md's, in a sentence each; the glossary adds no figure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

# term -> definition. A term is found on a page as a whole word (case-sensitive for abbreviations).
TERMS: dict[str, str] = {
    "TP": "true positive: a clause (or finding) the oracle holds and the system returned",
    "FP": "false positive: returned by the system where the oracle holds none",
    "FN": "false negative: held by the oracle and missed by the system",
    "TN": "true negative: the oracle holds none and the system returned none",
    "FAR": "false acceptance rate, FP / (FP + TN): how often a system returns a clause that is not there",
    "FRR": "false rejection rate, FN / (FN + TP): how often a system misses a clause that is there",
    "Acc": "accuracy, (TP + TN) over every instance",
    "HalTP": "share of the judged true positives whose text the judge found contradicts the contract",
    "HalGen": "hallucination rate over judged true positives and false positives: (contradicted + FP) / "
              "(judged + FP)",
    "JEq": "share of judged true positives plus misses whose text the judge found legally equivalent",
    "RDI": "Risk Direction Index, (extra conditions - missing conditions) / contradicted clauses: above zero a "
           "system invents obligations, below zero it drops them",
    "F1": "harmonic mean of precision and recall",
    "F2": "5PR / (4P + R): the F-score that weighs recall above precision (missing an element costs more)",
    "M_v": "the set of elements a query variant leaves out (the gold of InsufficiencyBench)",
    "ExplAcc": "explanation accuracy: share of identified missing elements whose explanation the judge accepts",
    "precision": "share of what a system returned that is right",
    "recall": "share of what is there that a system found",
    "over-flag": "share of complete base queries (nothing missing) on which a system still claims something is "
                 "missing: lower is better, 100% is the worst",
    "safety": "1 - the share of the missing elements for which an answer made up a fact instead of asking",
    "hedge rate": "share of answers that say something is missing",
    "term-only": "the ablation that matches findings on their term alone, ignoring where in the contract they are",
    "multiset": "matching that counts each repeated finding against its gold copies: a repeat beyond them is an FP",
    "matched cells": "the (contract, run) cells every fully audited system covers; cross-model figures and ranks "
                     "use only these, so systems are compared on the same work",
    "composite rank": "mean of a system's ranks on the headline metrics, weighted by a scheme; lower is better",
    "scheme": "the weights of the composite rank: equal (all alike), fp heavy (fabrication costly), recall heavy "
              "(a missed clause costly), halluc only (content only), detection only (finding clauses only)",
    "held-out": "evidence a judge's rules were not written from; a judge is validated only on such a set",
    "95% CI": "95% bootstrap interval: the range the figure falls in on 95% of resamples of the contracts",
    "resample": "one bootstrap draw of the contracts (clusters) with replacement",
    "pp": "percentage points: the difference of two percentages",
    "calls per": "model calls spent per correct answer, every stage (solve, judge, debate) counted",
    "cost per": "USD spent per correct answer, every stage counted, at the registered prices",
}
_PATTERNS = {term: re.compile(r"(?<![\w-])" + re.escape(term) + r"(?![\w-])") for term in TERMS}


def used_terms(text: str) -> list[str]:
    """The glossary's terms the text uses, and those their definitions use, in the glossary's order."""
    found = {term for term, pattern in _PATTERNS.items() if pattern.search(text)}
    while True:  # a definition's own terms are defined too
        more = {t for term in found for t, pattern in _PATTERNS.items() if pattern.search(TERMS[term])} - found
        if not more:
            return [term for term in TERMS if term in found]
        found |= more


def glossary_lines(text: str, markdown: bool = True) -> list[str]:
    """The glossary for a page whose text is `text`: a heading and one line per term it uses (none: no lines)."""
    terms = used_terms(text)
    if not terms:
        return []
    heading = "## Terms" if markdown else "Terms\n====="
    return [heading, *(f"{'- ' if markdown else ''}{'**' if markdown else ''}{t}{'**' if markdown else ''}: "
                       f"{TERMS[t]}" for t in terms), ""]


def with_glossary(page: str, after: str, markdown: bool = True) -> str:
    """`page` with its glossary inserted before the first line starting `after` (the section after the verdict)."""
    lines = page.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(after)), None)
    if at is None:
        return page
    return "\n".join([*lines[:at], *glossary_lines(page, markdown), *lines[at:]])


def _visible(html: str) -> str:
    """The page's text as a reader sees it (tags and attribute values left out)."""
    return re.sub(r"<[^>]*>", " ", html)


def glossary_html(page: str) -> str:
    """The glossary section for an HTML page (the page before it is inserted)."""
    terms = used_terms(_visible(page))
    if not terms:
        return ""
    items = "".join(f"<dt>{escape(t)}</dt><dd>{escape(TERMS[t])}</dd>" for t in terms)
    return f'<section id="glossary"><h2>Terms</h2><dl class="facts" data-glossary="terms">{items}</dl></section>'


def with_glossary_html(page: str) -> str:
    """The page with its glossary right after the verdict section."""
    end = page.find("</section>", page.find('<section id="verdict"'))
    if end < 0:
        return page
    end += len("</section>")
    return page[:end] + glossary_html(page) + page[end:]


def header_title(header: str) -> str | None:
    """The tooltip of a column header that is (or begins with) a glossary term."""
    for term in TERMS:
        if header == term or header.startswith(term + " ") or header.endswith(" " + term):
            return TERMS[term]
    return None


def defined(terms: Iterable[str]) -> bool:
    return all(t in TERMS for t in terms)
