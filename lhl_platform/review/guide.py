"""What a review sheet tells its reviewer, per suite: what the decision column is, and what each decision value
means and does to the next gold version (the sheet's header and docs/method.md say the same)."""

from __future__ import annotations

from lhl_platform.review.events import DECISIONS

INTRO = {
    "contractscrub": (
        "ContractScrub's gold is rule-built until reviewed. Each row is one gold tuple or one model finding: an "
        "injected edit (the change highlighted, other injected edits nearby marked apart), a defined term the "
        "gold derived from the text (no edit of ours made it), or a finding of an audited model that matched no "
        "gold. In decisions.csv write one value in the decision column of each row you reviewed (a blank "
        "decision is a row not reviewed); for wrong_location also write the right location in "
        "corrected_location, as the contract numbers it (4.2, P, R, Exhibit A). The term, location and context "
        "columns are for reading; the importer ignores them. Then `lhl review import decisions.csv --reviewer "
        "NAME`; the next gold version holds the decisions."),
    "insufficiency": (
        "InsufficiencyBench's gold is rule-built until reviewed. Each row is a base query (fully specified), a "
        "variant beside its base (what it removed highlighted) or one required missing element of a variant with "
        "its reference explanation. In decisions.csv write one value in the decision column of each row you "
        "reviewed (a blank decision is a row not reviewed). The term, location and context columns are for "
        "reading; the importer ignores them. Then `lhl review import decisions.csv --reviewer NAME`; the next "
        "gold version holds the decisions."),
}

# (kind, decision): what it means, and what it does to the next gold version.
MEANING: dict[tuple[str, str], str] = {
    ("edit", "accept"): "a real defect of this category, its gold tuple right: it stays as it is",
    ("edit", "reject"): "not a defect (or not of this category): the edit leaves the gold and is undone in the text",
    ("edit", "wrong_location"): "a real defect, but its gold location is wrong: the tuple stays, at the location "
                                "written in corrected_location",
    ("term", "accept"): "the contract defines this term at this location: it stays",
    ("term", "reject"): "not a definition: the tuple leaves the defined-terms gold",
    ("term", "wrong_location"): "a definition, but at another location: the tuple moves to corrected_location",
    ("finding", "pre_existing"): "a real defect already in the source contract, at the location the model gives: "
                                 "it joins the gold",
    ("finding", "wrong_location"): "a real defect already in the source contract, at another location: it joins "
                                   "the gold at corrected_location (so the finding as reported still misses it)",
    ("finding", "wrong"): "not a defect: the gold is unchanged and the finding stays a false positive",
    ("base", "accept"): "complete: a lawyer could answer the query as written; it stays",
    ("base", "incomplete"): "something legally material is missing: the base and every variant of it leave the "
                            "gold (a variant's gold holds only if its base lacks nothing)",
    ("variant", "accept"): "the variant lacks its required elements and nothing else material: it stays",
    ("variant", "reject"): "the variant is unsound (it lacks more or less than recorded): it leaves the gold",
    ("element", "accept"): "the element is missing from the variant and a lawyer needs it: it stays gold",
    ("element", "not_required"): "not needed to answer: it stays recorded but is no longer gold (naming it is no "
                                 "hit, leaving it out no miss)",
}

KINDS = {"contractscrub": ("edit", "term", "finding"), "insufficiency": ("base", "variant", "element")}


def decision_guide(suite: str) -> list[tuple[str, str, str]]:
    """(kind, decision, meaning) for every decision the suite's rows take, in the sheet's order."""
    return [(kind, d, MEANING[(kind, d)]) for kind in KINDS[suite] for d in DECISIONS[kind]]
