"""`lhl review`: review sheets of a suite's gold, decisions recorded as events, and the gold versions they make.

Small self-built sets (the Northwind licence of tests/scrub_data, three short legal queries) with predictions
imported for them, so every figure before and after a review is computed by hand here."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from lhl_platform.home import Home
from lhl_platform.review.agreement import cohen_kappa
from lhl_platform.scrub.categories import CATEGORY_KEYS
from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.items import Edit, Finding, GoldFinding, ScrubItem, Source, export_items
from orchestration.cli import main
from tests.scrub_fixtures import CONTRACT


def lhl(home: Home, *args: str) -> int:
    return main(["--home", str(home.root), *args])


def planted(contract_id: str, edits: list[tuple[str, str, str, str, dict[str, str]]]) -> ScrubItem:
    """The Northwind licence with several edits, recorded as the injector records them: each (category, context,
    old, new, fields) replaces `old` inside the first `context` by `new`; the defined terms derived from the text."""
    spots = []
    for category, at, old, new, fields in edits:
        start = CONTRACT.index(at) + at.index(old)
        spots.append((start, start + len(old), old, new, category, fields))
    text, shift, gold = CONTRACT, 0, []
    for start, _end, old, new, category, fields in sorted(spots):
        s = start + shift
        text = text[:s] + new + text[s + len(old):]
        gold.append(GoldFinding(category=category, edit=Edit(start=s, end=s + len(new), original=old), **fields))
        shift += len(new) - len(old)
    terms = [GoldFinding(category="defined_terms", term=d.term, location=d.location)
             for d in parse_contract(text).definitions]
    source = Source(corpus="self-built", contract_id=contract_id, sha256=hashlib.sha256(CONTRACT.encode()).hexdigest())
    return ScrubItem(contract_id=contract_id, text=text, gold=tuple(terms + gold), source=source)


ROYALTY = "6.2 Licensee shall pay Licensor a royalty of five percent (5%) of Net Sales within thirty (30) days"
IL = "inconsistent_language"
ITEMS = (
    planted("nw-a", [(IL, ROYALTY, "five percent (5%)", "six percent (6%)", {"location": "6.2", "location_2": "3.1"}),
                     (IL, "once in each calendar year upon fifteen (15) days'", "fifteen (15) days'", "ten (10) days'",
                      {"location": "3.3", "location_2": "6.2"}),
                     ("incorrect_section_references", "5.3 Upon termination under Section 5.2", "5.2", "5.1",
                      {"wrong": "5.1", "correct": "5.2", "location": "5.3"})]),
    planted("nw-b", [(IL, ROYALTY, "thirty (30) days", "forty-five (45) days",
                      {"location": "6.2", "location_2": "3.1"}),
                     ("incorrect_party_references", "the Territory without the prior written consent of Licensor",
                      "consent of Licensor",
                      "consent of Licensee", {"wrong": "Licensee", "correct": "Licensor", "location": "2.2"})]),
    planted("nw-c", [(IL, ROYALTY, "five percent (5%)", "seven percent (7%)",
                      {"location": "6.2", "location_2": "3.1"})]),
)


def findings_file(path: Path) -> Path:
    """vendor-x: the defined terms and most injected defects found, one inconsistency missed (nw-a 3.3), three real
    defects of the source licence reported (Marketing Plan undefined in nw-a and nw-b, "net sales" uncapitalised in
    nw-c) and one wrong party reference (nw-a 4.3). vendor-y: the gold of every contract and Marketing Plan in nw-a."""
    extra = {("nw-a", "undefined_capitalized_terms"): [{"term": "Marketing Plan", "location": "4.2"}],
             ("nw-b", "undefined_capitalized_terms"): [{"term": "Marketing Plan", "location": "4.2"}],
             ("nw-c", "uncapitalized_defined_terms"): [{"term": "net sales", "location": "3.3"}],
             ("nw-a", "incorrect_party_references"): [{"wrong": "Licensor", "correct": "Licensee",
                                                      "location": "4.3"}]}
    missed = {("nw-a", IL, "3.3")}
    lines = []
    for model in ("vendor-x", "vendor-y"):
        for item in ITEMS:
            for category in CATEGORY_KEYS:
                found = [g.fields() for g in item.gold if g.category == category
                         and (model == "vendor-y" or (item.contract_id, category, g.fields().get("location"))
                              not in missed)]
                if model == "vendor-x":
                    found += extra.get((item.contract_id, category), [])
                elif (item.contract_id, category) == ("nw-a", "undefined_capitalized_terms"):
                    found += extra[("nw-a", category)]
                lines.append(json.dumps({"model": model, "run": 1, "contract_id": item.contract_id,
                                         "category": category, "findings": found}))
    path.write_text("\n".join(lines) + "\n")
    return path


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def report(home: Home, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert lhl(home, "report", "--format", "json", *args) == 0
    return json.loads(capsys.readouterr().out)


def verify_events(home: Home, capsys: pytest.CaptureFixture[str]) -> int:
    capsys.readouterr()
    assert lhl(home, "verify") == 0
    out = capsys.readouterr().out
    found = re.search(r"event log intact: \d+ streams, \d+ segments, (\d+) events", out)
    assert found, out
    return int(found.group(1))


@pytest.fixture(scope="module")
def scrub(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A home with the three contracts ingested, both models' findings imported, the sheet exported."""
    root = tmp_path_factory.mktemp("review-scrub")
    home = Home.resolve(root / "home").ensure()
    release = root / "set.jsonl"
    release.write_bytes(export_items(ITEMS))
    assert lhl(home, "ingest", "contractscrub", str(release)) == 0
    assert lhl(home, "import", "findings", str(findings_file(root / "findings.jsonl"))) == 0
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(root / "sheet")) == 0
    return {"home": home, "root": root, "sheet": root / "sheet"}


def _by_kind(rows: list[dict[str, str]], kind: str) -> list[dict[str, str]]:
    return [r for r in rows if r["kind"] == kind]


def test_the_sheet_lists_every_edit_and_every_unmatched_finding_pooled_with_stable_refs(scrub: dict,
                                                                                     tmp_path: Path) -> None:
    rows = read_csv(scrub["sheet"] / "decisions.csv")
    assert list(rows[0]) == ["ref", "suite", "item_set", "gold_version", "sheet_digest", "item_id", "kind",
                             "category", "term", "location", "context", "decision", "corrected_location", "note"]
    edits = _by_kind(rows, "edit")
    assert sorted((r["item_id"], r["category"]) for r in edits) == sorted(
        (i.contract_id, g.category) for i in ITEMS for g in i.gold if g.edit is not None)
    findings = _by_kind(rows, "finding")
    # Marketing Plan in nw-a found by both models is one row; the gold vendor-y found adds none.
    assert sorted((r["item_id"], r["category"]) for r in findings) == [
        ("nw-a", "incorrect_party_references"), ("nw-a", "undefined_capitalized_terms"),
        ("nw-b", "undefined_capitalized_terms"), ("nw-c", "uncapitalized_defined_terms")]
    assert {r["gold_version"] for r in rows} == {"1"} and all(r["decision"] == "" for r in rows)
    html = (scrub["sheet"] / "review.html").read_text()
    assert "<del>five percent (5%)</del><ins>six percent (6%)</ins>" in html  # the change in its context
    assert "found by vendor-x, vendor-y" in html and "inconsistent_language" in html
    assert "Licensor may audit the records" in html
    # Exported again, the same refs.
    assert lhl(scrub["home"], "review", "export", "--suite", "contractscrub", "--out", str(tmp_path)) == 0
    assert [r["ref"] for r in read_csv(tmp_path / "decisions.csv")] == [r["ref"] for r in rows]
    assert len({r["ref"] for r in rows}) == len(rows)


def _decide(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    out = []
    for r in rows:
        r = dict(r)
        if r["kind"] == "edit":
            r["decision"] = "reject" if r["category"] == IL and r["item_id"] in ("nw-a", "nw-b") else "accept"
        elif r["kind"] == "term":
            r["decision"] = "accept"
        elif r["category"] == "incorrect_party_references":
            r["decision"], r["note"] = "wrong", "4.3 names the right party"
        else:
            r["decision"] = "pre_existing"
        out.append(r)
    return out


@pytest.mark.parametrize(("change", "message"), [
    (lambda rows: rows[0].update(ref="0123456789abcdef"), "line 2: unknown ref '0123456789abcdef'"),
    (lambda rows: next(r for r in rows if r["kind"] == "edit").update(decision="pre_existing"),
     "decision 'pre_existing' does not fit a edit (one of accept, reject, wrong_location)"),
    (lambda rows: next(r for r in rows if r["kind"] == "finding").update(decision="accept"),
     "decision 'accept' does not fit a finding (one of pre_existing, wrong_location, wrong)"),
    (lambda rows: [r.update(gold_version="2") for r in rows], "is of gold version 2 of item set"),
    (lambda rows: rows[1].update(gold_version="3"), "line 3: gold_version '3', but line 2 has '1'"),
])
def test_a_bad_sheet_is_refused_in_one_line_and_nothing_is_written(scrub: dict, tmp_path: Path, capsys,
                                                                   change, message) -> None:
    home = scrub["home"]
    rows = _decide(read_csv(scrub["sheet"] / "decisions.csv"))
    change(rows)
    before = verify_events(home, capsys)
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "bad.csv", rows)), "--reviewer", "ann") == 1
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert verify_events(home, capsys) == before


def _category(board: dict, model: str) -> dict:
    return {r["category"]: r for r in board["by_category"] if r["model"] == model}


def _leader(board: dict, model: str) -> dict:
    return next(r for r in board["leaderboard"] if r["model"] == model)


def test_decisions_make_gold_version_2_and_version_1_stays_reportable(scrub: dict, tmp_path: Path, capsys) -> None:
    home = scrub["home"]
    rows = _decide(read_csv(scrub["sheet"] / "decisions.csv"))
    v1 = report(home, capsys, "--suite", "contractscrub")
    assert v1["scope"]["gold_version"] == 1
    x1 = _leader(v1, "vendor-x")
    # By hand, version 1 (vendor-x): recall over the categories with gold: defined terms 1, section references 1/1,
    # party references 1/1, inconsistent language 3/4; precision where it exists: defined terms 1, undefined
    # capitalised 0/2, uncapitalised 0/1, section references 1/1, party references 1/2, inconsistent 3/3.
    assert x1["recall"] == pytest.approx((1 + 1 + 1 + 0.75) / 4)
    assert x1["precision"] == pytest.approx((1 + 0 + 0 + 1 + 0.5 + 1) / 6)
    before = verify_events(home, capsys)

    capsys.readouterr()
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "ann.csv", rows)), "--reviewer", "ann") == 0
    out = capsys.readouterr().out
    assert "made gold version 2: 6 rows change the gold" in out and f"{len(rows)} of {len(rows)} reviewed" in out

    v2 = report(home, capsys, "--suite", "contractscrub")
    assert v2["scope"]["gold_version"] == 2
    assert (v2["scope"]["gold_reviewed"], v2["scope"]["gold_reviewable"], v2["scope"]["gold_reviewers"]) == (
        len(rows), len(rows), 1)
    gold1 = {r["category"]: r["gold"] for r in v1["gold"]}
    gold2 = {r["category"]: r["gold"] for r in v2["gold"]}
    # Exactly the three rejected edits gone, the three pre-existing defects added.
    assert gold2 == {**gold1, IL: gold1[IL] - 3, "undefined_capitalized_terms": 2, "uncapitalized_defined_terms": 1}
    x2, c2 = _leader(v2, "vendor-x"), _category(v2, "vendor-x")
    assert (c2[IL]["gold"], c2[IL]["tp"], c2[IL]["fp"]) == (1, 1, 2)  # nw-a and nw-b's answers now find nothing
    assert (c2["undefined_capitalized_terms"]["tp"], c2["uncapitalized_defined_terms"]["tp"]) == (2, 1)
    # By hand, version 2: recall 1 in the six categories with gold; precision: 1, 1, 1, 1, 1/2, 1/3.
    assert x2["recall"] == pytest.approx(1.0)
    assert x2["precision"] == pytest.approx((1 + 1 + 1 + 1 + 0.5 + 1 / 3) / 6)
    y2 = _category(v2, "vendor-y")
    assert (y2[IL]["gold"], y2[IL]["tp"], y2[IL]["fp"]) == (1, 1, 3)
    assert (y2["undefined_capitalized_terms"]["tp"], y2["undefined_capitalized_terms"]["fn"]) == (1, 1)

    again = report(home, capsys, "--suite", "contractscrub", "--gold-version", "1")
    assert again["scope"]["gold_version"] == 1
    assert _leader(again, "vendor-x") == x1 and again["by_category"] == v1["by_category"]
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "contractscrub", "--gold-version", "3") == 1
    assert "has no gold version 3; versions: 1, 2" in capsys.readouterr().err
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "contractscrub") == 0
    assert "gold:      version 2 (" in capsys.readouterr().out
    assert lhl(home, "compare", "vendor-x", "vendor-y", "--suite", "contractscrub", "--resamples", "50") == 0
    assert "gold version 2 (" in capsys.readouterr().out

    # Every decision is an event of the hash-chained log, with the version, the 3 items and the 54 calls rescored.
    assert verify_events(home, capsys) == before + len(rows) + 1 + len(ITEMS) + 2 * len(ITEMS) * len(CATEGORY_KEYS)
    assert lhl(home, "verify") == 0
    assert f"review: {len(rows)} decisions by 1 reviewer(s) (ann), in the log verified above; contractscrub " \
        in capsys.readouterr().out
    # The same file again records nothing.
    assert lhl(home, "review", "import", str(tmp_path / "ann.csv"), "--reviewer", "ann") == 0
    assert "imported before; nothing new" in capsys.readouterr().out

    # Version 2's sheet: the rejected edits are gone and undone in the text, the pre-existing defects are gold.
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(tmp_path / "v2")) == 0
    rows2 = read_csv(tmp_path / "v2" / "decisions.csv")
    assert {r["gold_version"] for r in rows2} == {"2"}
    kept = {r["ref"] for r in _by_kind(rows, "edit") if r["decision"] == "accept"}
    assert {r["ref"] for r in _by_kind(rows2, "edit")} == kept
    html = (tmp_path / "v2" / "review.html").read_text()
    assert "six percent (6%)" not in html and "seven percent (7%)" in html
    assert sorted((r["item_id"], r["category"]) for r in _by_kind(rows2, "finding")) == [
        ("nw-a", IL), ("nw-a", IL), ("nw-a", "incorrect_party_references"), ("nw-b", IL)]


def test_cohen_kappa_by_hand() -> None:
    # 4 pairs, 3 alike: observed 3/4; chance (2*3 + 2*1)/16 = 1/2; kappa (3/4 - 1/2) / (1/2) = 1/2.
    pairs = [("accept", "accept"), ("accept", "accept"), ("reject", "accept"), ("reject", "reject")]
    assert cohen_kappa(pairs) == (pytest.approx(0.75), pytest.approx(0.5))
    assert cohen_kappa([("accept", "accept")] * 3) == (1.0, None)  # chance agreement 1: kappa undefined
    assert cohen_kappa([]) == (None, None)


# Three legal queries written for these tests (self-built): two bases, three variants with their missing elements.
DEPOSIT = "I live in Ohio. My landlord kept my $900 security deposit after I moved out on March 1, 2026. Can I sue?"
FIRED = ("My employer in Texas fired me after I reported a safety violation to OSHA last week. I was an at-will "
         "employee. Do I have a retaliation claim?")


def _element(tag: str, category: str, why: str) -> dict:
    return {"sub_tag": tag, "category": category, "required": True, "explanation": why}


QUERIES = [
    {"item_id": "q1", "base_id": "q1", "kind": "base", "domain": "housing", "jurisdiction": "US-OH", "query": DEPOSIT},
    {"item_id": "q1a", "base_id": "q1", "kind": "variant", "domain": "housing", "jurisdiction": "US-OH",
     "query": "My landlord kept my $900 security deposit after I moved out. Can I sue?",
     "missing_elements": [_element("state", "jurisdiction", "deposit statutes differ by state"),
                          _element("move_out_date", "timing", "the return deadline runs from the move-out")]},
    {"item_id": "q1b", "base_id": "q1", "kind": "variant", "domain": "housing", "jurisdiction": "US-OH",
     "query": "I live in Ohio. My landlord kept money after I moved out on March 1, 2026. Can I sue?",
     "missing_elements": [_element("deposit_amount", "facts_of_harm", "what was withheld decides the claim")]},
    {"item_id": "q2", "base_id": "q2", "kind": "base", "domain": "employment", "jurisdiction": "US-TX",
     "query": FIRED},
    {"item_id": "q2a", "base_id": "q2", "kind": "variant", "domain": "employment", "jurisdiction": "US-TX",
     "query": "My employer in Texas fired me after I reported a safety violation last week. Do I have a "
              "retaliation claim?",
     "missing_elements": [_element("employment_status", "parties_and_status", "at-will status shapes the claim"),
                          _element("agency_report", "procedural_posture", "a report to OSHA is protected")]},
]
# What the judge found each response identified (every gold element judged once).
IDENTIFIED = {"q1": [], "q1a": ["state", "move_out_date"], "q1b": [], "q2": [], "q2a": ["employment_status"]}


def _bench_home(root: Path) -> tuple[Home, Path]:
    """The three queries ingested, m1's responses and ext-judge's judgments imported, the sheet exported."""
    home = Home.resolve(root / "home").ensure()
    items = root / "items.jsonl"
    items.write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    responses, judgments = root / "responses.jsonl", root / "judgments.jsonl"
    responses.write_text("".join(json.dumps({"model": "m1", "run": 1, "item_id": q["item_id"],
                                             "response": "It depends on facts you have not given."}) + "\n"
                                 for q in QUERIES))
    judgments.write_text("".join(json.dumps({
        "model": "m1", "run": 1, "judge": "ext-judge", "item_id": q["item_id"],
        "identified_elements": IDENTIFIED[q["item_id"]], "additional_claims": [],
        "claimed_anything_missing": q["kind"] == "variant",
        "elements": [{"sub_tag": e["sub_tag"], "explanation_matches": e["sub_tag"] in IDENTIFIED[q["item_id"]],
                      "fabricated": False} for e in q.get("missing_elements", [])]}) + "\n" for q in QUERIES))
    assert lhl(home, "ingest", "insufficiency", str(items), "--name", "review-test") == 0
    assert lhl(home, "import", "responses", str(responses)) == 0
    assert lhl(home, "import", "judgments", str(judgments)) == 0
    assert lhl(home, "review", "export", "--suite", "insufficiency", "--out", str(root / "sheet")) == 0
    return home, root / "sheet"


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> dict:
    home, sheet = _bench_home(tmp_path_factory.mktemp("review-insufficiency"))
    return {"home": home, "root": sheet.parent, "sheet": sheet}


def _board(home: Home, capsys, *args: str) -> tuple[dict, dict]:
    out = report(home, capsys, "--suite", "insufficiency", "--judge", "ext-judge", *args)
    return out, next(r for r in out["leaderboard"] if r["model"] == "m1")


def _decide_queries(rows: list[dict[str, str]], *, reject_q1b: bool) -> list[dict[str, str]]:
    out = []
    for r in rows:
        r = dict(r)
        r["decision"] = "accept"
        if r["kind"] == "variant" and r["item_id"] == "q1b" and reject_q1b:
            r["decision"] = "reject"
        if r["kind"] == "element" and r["item_id"] == "q1a" and r["category"] == "jurisdiction":
            r["decision"], r["note"] = "not_required", "the query still says where the flat is in the lease"
        out.append(r)
    return out


def test_insufficiency_sheet_decisions_versions_and_agreement(bench: dict, tmp_path: Path, capsys) -> None:
    home = bench["home"]
    rows = read_csv(bench["sheet"] / "decisions.csv")
    assert sorted((r["kind"], r["item_id"]) for r in rows) == sorted(
        [("base", "q1"), ("base", "q2"), ("variant", "q1a"), ("variant", "q1b"), ("variant", "q2a"),
         ("element", "q1a"), ("element", "q1a"),
         ("element", "q1b"), ("element", "q2a"), ("element", "q2a")])
    html = (bench["sheet"] / "review.html").read_text()
    assert "kept <del>my $900 security deposit</del><ins>money</ins> after" in html  # q1b beside its base
    assert "deposit_amount: what was withheld decides the claim" in html

    # A variant cannot be pre_existing; an element cannot be rejected.
    for kind, bad in (("variant", "pre_existing"), ("element", "reject")):
        wrong = [dict(r, decision=bad) if r["kind"] == kind else r for r in rows]
        before = verify_events(home, capsys)
        assert lhl(home, "review", "import", str(write_csv(tmp_path / "bad.csv", wrong)), "--reviewer", "ann") == 1
        assert f"does not fit a {kind}" in capsys.readouterr().err
        assert verify_events(home, capsys) == before

    v1, m1 = _board(home, capsys)
    assert v1["scope"]["gold_version"] == 1
    # By hand, version 1: q1a R 1 P 1 F2 1; q1b R 0, P undefined, F2 0; q2a R 1/2 P 1 F2 5*.5/4.5.
    f2_q2a = 5 * 1 * 0.5 / (4 * 1 + 0.5)
    assert (m1["f2"], m1["recall"], m1["precision"]) == (pytest.approx((1 + 0 + f2_q2a) / 3), pytest.approx(0.5),
                                                          pytest.approx(1.0))
    before = verify_events(home, capsys)
    ann = write_csv(tmp_path / "ann.csv", _decide_queries(rows, reject_q1b=True))
    assert lhl(home, "review", "import", str(ann), "--reviewer", "ann") == 0
    v2, m2 = _board(home, capsys)
    assert v2["scope"]["gold_version"] == 2 and m2["complete"]
    # Version 2: q1b gone; in q1a "state" is no longer gold, so naming it is a claim outside M_v: R 1, P 1/2,
    # F2 5*.5/(2+1).
    f2_q1a = 5 * 0.5 * 1 / (4 * 0.5 + 1)
    assert (m2["variants"], m2["f2"], m2["recall"], m2["precision"]) == (
        2, pytest.approx((f2_q1a + f2_q2a) / 2), pytest.approx(0.75), pytest.approx(0.75))
    item_set = {r["name"]: r for r in v2["item_set"]}["review-test"]
    assert (item_set["variants"], item_set["gold_elements"], item_set["non_required_elements"]) == (2, 3, 1)
    assert verify_events(home, capsys) == before + len(rows) + 1 + len(QUERIES)

    # A second reviewer on the same sheet (version 1), differing on q1b: version 3 applies what both decided alike.
    bob = write_csv(tmp_path / "bob.csv", _decide_queries(rows, reject_q1b=False))
    assert lhl(home, "review", "import", str(bob), "--reviewer", "bob") == 0
    assert "1 disagreements left as they were" in capsys.readouterr().out
    v3, m3 = _board(home, capsys)
    assert (v3["scope"]["gold_version"], v3["scope"]["gold_reviewers"]) == (3, 2)
    assert (m3["variants"], m3["f2"], m3["recall"]) == (3, pytest.approx((f2_q1a + 0 + f2_q2a) / 3),
                                                        pytest.approx(0.5))
    _, again = _board(home, capsys, "--gold-version", "2")
    assert again["f2"] == m2["f2"]
    _, first = _board(home, capsys, "--gold-version", "1")
    assert first == m1
    capsys.readouterr()
    assert lhl(home, "review", "agreement", "--suite", "insufficiency", "--gold-version", "1", "--format",
               "json") == 0
    agreed = json.loads(capsys.readouterr().out)
    # 10 refs (the two bases among them), 9 alike; ann 8 accept, 1 reject, 1 not_required, bob 9 accept,
    # 1 not_required: chance (8*9 + 1*1)/100 = 73/100, kappa (90/100 - 73/100) / (27/100) = 17/27.
    assert (agreed["refs"], agreed["agreed"]) == (10, 9)
    assert agreed["kappa"] == pytest.approx(17 / 27)
    assert [(d["item_id"], d["kind"], d["first"], d["second"]) for d in agreed["disagreements"]] == [
        ("q1b", "variant", "reject", "accept")]
    capsys.readouterr()
    assert lhl(home, "verify") == 0
    assert f"review: {2 * len(rows)} decisions by 2 reviewer(s) (ann, bob)" in capsys.readouterr().out
    # A sheet of version 2 is refused once version 3 was made from another sheet.
    assert lhl(home, "review", "export", "--suite", "insufficiency", "--gold-version", "2", "--out",
               str(tmp_path / "v2")) == 0
    capsys.readouterr()
    assert lhl(home, "review", "import", str(tmp_path / "v2" / "decisions.csv"), "--reviewer", "cy") == 1
    assert "but the gold is at version 3, made from another sheet" in capsys.readouterr().err


def test_a_model_imported_after_the_review_is_scored_in_every_gold_version(scrub: dict, capsys) -> None:
    home, root = scrub["home"], scrub["root"]
    lines = [json.loads(x) for x in (root / "findings.jsonl").read_text().splitlines()]
    late = root / "late.jsonl"
    late.write_text("".join(json.dumps({**x, "model": "vendor-z"}) + "\n" for x in lines if x["model"] == "vendor-y"))
    assert lhl(home, "import", "findings", str(late)) == 0
    for version, il_fp in (("1", 0), ("2", 3)):  # vendor-y's answers, so vendor-y's counts in each version
        board = report(home, capsys, "--suite", "contractscrub", "--gold-version", version)
        z, y = _leader(board, "vendor-z"), _leader(board, "vendor-y")
        assert z["complete"] and z["recall"] == y["recall"] and z["precision"] == y["precision"]
        assert _category(board, "vendor-z")[IL]["fp"] == il_fp


def test_judge_agreement_refuses_a_gold_version_it_would_not_read(tmp_path: Path, capsys) -> None:
    # Two judges' labels of the same answers read no gold, so the flag is refused rather than ignored.
    home = Home(tmp_path / "home")
    rc = lhl(home, "judge", "agree", "a", "b", "--suite", "insufficiency", "--gold-version", "1")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and "--gold-version does not apply" in err[0]


def test_undoing_a_rejected_edit_derives_the_whole_defined_terms_gold_again() -> None:
    """A rejected second definition of "Territory" (6.3): the gold's terms are read again from the restored text,
    so "Territory" stays at 1.2 where the licence defines it, not at the 6.3 the edit made (dropping the first
    "Territory" found would keep the wrong one); a defined-terms tuple the parser never derived stays."""
    from lhl_platform.review import scrub_gold
    from lhl_platform.review.scrub_sheet import edit_ref
    from tests.scrub_fixtures import planted as planted_one

    item = planted_one("terms_defined_multiple_times", "6.3 The restrictions in Sections 2.1 and 2.2 survive the "
                       "termination of this Agreement.", "", ' "Territory" means the United States of America and '
                       "Canada.", {"term": "Territory", "location": "1.2", "location_2": "6.3"})
    kept = GoldFinding(category="defined_terms", term="Marketing Plan", location="4.2")  # a reviewer's, say
    item = item.model_copy(update={"gold": (*item.gold, kept)})
    assert ("Territory", "6.3") in {(g.term, g.location) for g in item.gold}
    edit = next(g for g in item.gold if g.edit is not None)
    (after,) = scrub_gold.apply("s", [item], {edit_ref("s", item, edit)}, {})
    assert after.text == CONTRACT
    expected = [("Agreement", "P"), ("Licensor", "P"), ("Licensee", "P"), ("Licensed Products", "1.1"),
                ("Territory", "1.2"), ("Effective Date", "1.3"), ("Net Sales", "1.4"), ("Party", "1.5"),
                ("Quarterly Report", "1.6")]
    assert [(d.term, d.location) for d in parse_contract(CONTRACT).definitions] == expected
    assert [(g.category, g.term, g.location) for g in after.gold] == [
        ("defined_terms", t, loc) for t, loc in [*expected, ("Marketing Plan", "4.2")]]


def test_undoing_an_edit_leaves_a_release_s_own_defined_terms_gold_as_it_was() -> None:
    """A release's gold that lists only some of the terms the parser reads (a curator left the others out): an
    undone edit that defines no term changes none of them; only the parser's readings before and after the undo
    differ, and they do not here."""
    from lhl_platform.review import scrub_gold
    from lhl_platform.review.scrub_sheet import edit_ref

    examples = Path(__file__).resolve().parents[1] / "docs" / "examples" / "contractscrub_items.jsonl"
    item = ScrubItem.model_validate_json(examples.read_text().splitlines()[0])
    terms = [g for g in item.gold if g.category == "defined_terms"]
    curated = terms[: len(terms) // 2]
    item = item.model_copy(update={"gold": tuple(g for g in item.gold
                                                 if g.category != "defined_terms" or g in curated)})
    edit = next(g for g in item.gold if g.edit is not None and g.category in
                ("incorrect_section_references", "incorrect_party_references", "inconsistent_language"))
    (after,) = scrub_gold.apply("s", [item], {edit_ref("s", item, edit)}, {})
    assert [g for g in after.gold if g.category == "defined_terms"] == curated
    assert edit not in after.gold and len(after.gold) == len(item.gold) - 1


# --- The loop closed (issue #42): exports carry the reviewed version, and the gold-version asset shows it at once --

def _gold_asset(home: Home, asset: str) -> dict[str, str]:
    """The metadata of the latest materialization of a gold-versions asset, as the Dagster UI shows it."""
    from dagster import AssetKey

    from orchestration.launch import instance_for

    instance = instance_for(home)
    try:
        event = instance.get_latest_materialization_event(AssetKey(asset))
        assert event is not None and event.asset_materialization is not None
        return {k: str(v.value) for k, v in event.asset_materialization.metadata.items()}
    finally:
        instance.dispose()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_reviewed_scrub_gold_exports_imports_elsewhere_and_scores_the_same(tmp_path: Path, capsys) -> None:
    home = Home.resolve(tmp_path / "home").ensure()
    release = tmp_path / "set.jsonl"
    release.write_bytes(export_items(ITEMS))
    findings = findings_file(tmp_path / "findings.jsonl")
    assert lhl(home, "ingest", "contractscrub", str(release)) == 0
    assert lhl(home, "import", "findings", str(findings)) == 0
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(tmp_path / "sheet")) == 0
    capsys.readouterr()
    sheet = write_csv(tmp_path / "ann.csv", _decide(read_csv(tmp_path / "sheet" / "decisions.csv")))
    assert lhl(home, "review", "import", str(sheet), "--reviewer", "ann") == 0
    # The gold-version asset shows version 2 the moment the import returns, through the one launch path.
    assert "materialized scrub_gold_versions (job scrub_gold)" in capsys.readouterr().out
    assert _gold_asset(home, "scrub_gold_versions")["latest_gold_version"] == "2"
    v2 = report(home, capsys, "--suite", "contractscrub")

    # The export defaults to the newest version, names it and its reviewer on every line, and holds its gold.
    assert lhl(home, "scrub", "export", str(tmp_path / "v2.jsonl")) == 0
    out = capsys.readouterr().out
    assert "gold version 2 (reviewed by ann)" in out
    lines = _lines(tmp_path / "v2.jsonl")
    assert {json.dumps(line["reviewed"], sort_keys=True) for line in lines} == {json.dumps(
        {"item_set": v2["scope"]["item_set"], "gold_version": 2, "reviewers": ["ann"]}, sort_keys=True)}
    held = Counter(g["category"] for line in lines for g in line["gold"])
    assert dict(held) == {r["category"]: r["gold"] for r in v2["gold"] if r["gold"]}
    assert all("six percent (6%)" not in line["text"] for line in lines)  # the rejected edit undone in the text
    # Version 1 is still the release's own bytes; a version that does not exist is one line.
    assert lhl(home, "scrub", "export", str(tmp_path / "v1.jsonl"), "--gold-version", "1") == 0
    assert (tmp_path / "v1.jsonl").read_bytes() == release.read_bytes()
    capsys.readouterr()
    assert lhl(home, "scrub", "export", str(tmp_path / "v3.jsonl"), "--gold-version", "3") == 1
    err = capsys.readouterr().err.strip()
    assert "has no gold version 3; its versions are 1 to 2" in err and len(err.splitlines()) == 1
    assert lhl(home, "scrub", "export", str(tmp_path / "gold.jsonl"), "--as-findings", "gold") == 0
    as_findings = _lines(tmp_path / "gold.jsonl")
    assert sum(len(line["findings"]) for line in as_findings) == sum(held.values())

    # Ingested elsewhere, the reviewed export is a new set whose gold is the reviewed gold: the same scores.
    other = Home.resolve(tmp_path / "other").ensure()
    assert lhl(other, "ingest", "contractscrub", str(tmp_path / "v2.jsonl")) == 0
    assert lhl(other, "import", "findings", str(findings)) == 0
    elsewhere = report(other, capsys, "--suite", "contractscrub")
    assert elsewhere["scope"]["gold_version"] == 1
    for model in ("vendor-x", "vendor-y"):
        here, there = _leader(v2, model), _leader(elsewhere, model)
        assert (there["recall"], there["precision"], there["f1"]) == (here["recall"], here["precision"], here["f1"])
    assert [(r["category"], r["gold"]) for r in elsewhere["gold"]] == [(r["category"], r["gold"]) for r in v2["gold"]]


def test_the_reviewed_insufficiency_gold_exports_without_the_rejected_variant(tmp_path: Path, capsys) -> None:
    home = Home.resolve(tmp_path / "home").ensure()
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    assert lhl(home, "ingest", "insufficiency", str(items), "--name", "review-test") == 0
    assert lhl(home, "review", "export", "--suite", "insufficiency", "--out", str(tmp_path / "sheet")) == 0
    decided = write_csv(tmp_path / "ann.csv", _decide_queries(read_csv(tmp_path / "sheet" / "decisions.csv"),
                                                              reject_q1b=True))
    capsys.readouterr()
    assert lhl(home, "review", "import", str(decided), "--reviewer", "ann") == 0
    assert "materialized insufficiency_gold_versions (job insufficiency_gold)" in capsys.readouterr().out
    assert _gold_asset(home, "insufficiency_gold_versions")["latest_gold_version"] == "2"
    assert lhl(home, "insufficiency", "export", str(tmp_path / "v2.jsonl")) == 0
    assert "gold version 2 (reviewed by ann; 4 of 5 items kept)" in capsys.readouterr().out
    lines = {line["item_id"]: line for line in _lines(tmp_path / "v2.jsonl")}
    assert sorted(lines) == ["q1", "q1a", "q2", "q2a"]
    assert all(line["reviewed"]["gold_version"] == 2 and line["reviewed"]["reviewers"] == ["ann"]
               for line in lines.values())
    state = next(e for e in lines["q1a"]["missing_elements"] if e["sub_tag"] == "state")
    assert state["required"] is False  # the element the reviewer marked not required
    assert lhl(home, "insufficiency", "export", str(tmp_path / "v1.jsonl"), "--gold-version", "1") == 0
    assert [json.loads(line) for line in (tmp_path / "v1.jsonl").read_text().splitlines()] == [
        {**q, "missing_elements": q.get("missing_elements", [])} for q in QUERIES]
    other = Home.resolve(tmp_path / "other").ensure()
    assert lhl(other, "ingest", "insufficiency", str(tmp_path / "v2.jsonl"), "--name", "reviewed") == 0


# --- A reviewer's read of the sheets (issue #42, item 4) ---------------------------------------------------------

def _scrub_home(root: Path) -> tuple[Home, Path]:
    """The `scrub` fixture's home, made afresh for a test that imports into it."""
    home = Home.resolve(root / "home").ensure()
    release = root / "set.jsonl"
    release.write_bytes(export_items(ITEMS))
    assert lhl(home, "ingest", "contractscrub", str(release)) == 0
    assert lhl(home, "import", "findings", str(findings_file(root / "findings.jsonl"))) == 0
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(root / "sheet")) == 0
    return home, root / "sheet"


def _header(html: str) -> str:
    return html[:html.index('<div class="row"')]


def test_every_derived_defined_term_is_a_row_marked_derived(scrub: dict) -> None:
    rows = read_csv(scrub["sheet"] / "decisions.csv")
    terms = _by_kind(rows, "term")
    assert sorted((r["item_id"], r["term"], r["location"]) for r in terms) == sorted(
        (i.contract_id, g.term, g.location) for i in ITEMS for g in i.gold if g.category == "defined_terms")
    assert {r["category"] for r in terms} == {"defined_terms"}
    html = (scrub["sheet"] / "review.html").read_text()
    assert html.count("<b>term</b> (derived from the text, not injected)") == len(terms)
    # The term is shown where the contract defines it: "Net Sales" in 1.4, not at an earlier mention.
    net_sales = next(r for r in terms if r["item_id"] == "nw-c" and r["term"] == "Net Sales")
    assert '{+Net Sales+}" means' in net_sales["context"]


def test_the_sheet_header_explains_the_decision_column_and_each_decision_of_its_suite(scrub: dict,
                                                                                    bench: dict) -> None:
    scrub_header = _header((scrub["sheet"] / "review.html").read_text())
    bench_header = _header((bench["sheet"] / "review.html").read_text())
    assert scrub_header != bench_header
    for header in (scrub_header, bench_header):
        assert "write one value in the decision column" in header and "a blank decision is a row not reviewed" in header
    assert ("<td><code>finding</code></td><td><code>pre_existing</code></td><td>a real defect already in the source "
            "contract, at the location the model gives: it joins the gold</td>") in scrub_header
    assert "<td><code>edit</code></td><td><code>reject</code></td><td>not a defect" in scrub_header
    assert "<td><code>term</code></td><td><code>wrong_location</code></td>" in scrub_header
    assert "<td><code>base</code></td><td><code>incomplete</code></td>" in bench_header
    assert "<td><code>element</code></td><td><code>not_required</code></td>" in bench_header
    assert "pre_existing" not in bench_header and "incomplete" not in scrub_header


def test_wrong_location_keeps_the_tuple_at_the_corrected_location(tmp_path: Path, capsys) -> None:
    """nw-a's section reference is real but the reviewer puts it in 5.4; nw-a's "Marketing Plan" is a real
    pre-existing defect, but in 4.1: both stand in gold version 2 at the corrected location, so vendor-x's 5.3 and
    4.2 no longer match them. Everything else left blank (not reviewed)."""
    home, sheet = _scrub_home(tmp_path)
    rows = read_csv(sheet / "decisions.csv")
    section = next(r for r in _by_kind(rows, "edit") if r["item_id"] == "nw-a"
                   and r["category"] == "incorrect_section_references")
    plan = next(r for r in _by_kind(rows, "finding") if r["item_id"] == "nw-a"
                and r["category"] == "undefined_capitalized_terms")
    section.update(decision="wrong_location", corrected_location="5.4")
    plan.update(decision="wrong_location", corrected_location="4.1")
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "ann.csv", rows)), "--reviewer", "ann") == 0
    board = report(home, capsys, "--suite", "contractscrub")
    assert board["scope"]["gold_version"] == 2
    x = _category(board, "vendor-x")
    refs, undefined = x["incorrect_section_references"], x["undefined_capitalized_terms"]
    assert (refs["gold"], refs["tp"], refs["fp"], refs["fn"]) == (1, 0, 1, 1)
    assert (undefined["gold"], undefined["tp"], undefined["fp"], undefined["fn"]) == (1, 0, 2, 1)
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(tmp_path / "v2")) == 0
    rows2 = read_csv(tmp_path / "v2" / "decisions.csv")
    assert [r["location"] for r in _by_kind(rows2, "edit") if r["category"] == "incorrect_section_references"
            and r["item_id"] == "nw-a"] == ["5.4"]


def test_a_term_rejected_leaves_the_gold_and_one_relocated_moves(tmp_path: Path, capsys) -> None:
    home, sheet = _scrub_home(tmp_path)
    rows = read_csv(sheet / "decisions.csv")
    before = {r["category"]: r["gold"] for r in report(home, capsys, "--suite", "contractscrub")["gold"]}
    party = next(r for r in _by_kind(rows, "term") if r["item_id"] == "nw-b" and r["term"] == "Party")
    territory = next(r for r in _by_kind(rows, "term") if r["item_id"] == "nw-b" and r["term"] == "Territory")
    party["decision"], territory["decision"], territory["corrected_location"] = "reject", "wrong_location", "1.3"
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "ann.csv", rows)), "--reviewer", "ann") == 0
    after = {r["category"]: r["gold"] for r in report(home, capsys, "--suite", "contractscrub")["gold"]}
    assert after == {**before, "defined_terms": before["defined_terms"] - 1}
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(tmp_path / "v2")) == 0
    terms2 = {(r["term"], r["location"]) for r in _by_kind(read_csv(tmp_path / "v2" / "decisions.csv"), "term")
              if r["item_id"] == "nw-b"}
    assert ("Territory", "1.3") in terms2 and ("Territory", "1.2") not in terms2
    assert not any(t == "Party" for t, _ in terms2)


def test_other_injected_edits_in_a_row_s_context_are_marked_apart_from_its_own() -> None:
    from lhl_platform.review.scrub_sheet import edit_rows
    from lhl_platform.review.sheet import review_html

    item = planted("nw-d", [(IL, ROYALTY, "five percent (5%)", "six percent (6%)", {"location": "6.2",
                                                                                   "location_2": "3.1"}),
                            (IL, ROYALTY, "thirty (30) days", "forty-five (45) days", {"location": "6.2",
                                                                                      "location_2": "3.1"})])
    first, second = edit_rows("s", 1, [item])
    assert [first.after[s:e] for s, e in first.after_marks] == ["forty-five (45) days"]
    assert [second.before[s:e] for s, e in second.before_marks] == ["six percent (6%)"]
    assert "[-five percent (5%)-]{+six percent (6%)+}" in first.context()
    assert "«forty-five (45) days»" in first.context() and "«six percent (6%)»" in second.context()
    html = review_html("contractscrub", [first], "t")
    assert '<mark class="other" title="another injected edit">forty-five (45) days</mark>' in html
    assert "<ins>six percent (6%)</ins>" in html


def test_a_finding_is_shown_inside_the_location_it_names_else_at_its_first_occurrence_and_the_row_says_so() -> None:
    from lhl_platform.review.scrub_sheet import finding_rows

    item = ITEMS[2]
    calls = {("vendor-w", 1, item.contract_id, "undefined_capitalized_terms"): (
        (Finding(category="undefined_capitalized_terms", term="Net Sales", location="6.2"),
         Finding(category="undefined_capitalized_terms", term="Territory", location="9")), "k", "imported")}
    rows = {r.term: r for r in finding_rows("s", 1, [item], calls)}
    net_sales = rows["Net Sales"]
    at = len(net_sales.before)
    assert parse_contract(item.text).location(item.text.index(net_sales.before + "Net Sales") + at) == "6.2"
    assert net_sales.shown_at == "shown in 6.2, the location it names"
    assert rows["Territory"].shown_at == ("not found in 9: shown at its first occurrence in the contract (1.2)")


@pytest.mark.parametrize(("change", "message"), [
    (lambda rows: rows.append(dict(rows[-1])), "again (first on line"),
    (lambda rows: [r.update(decision="") for r in rows], "no row has a decision"),
    (lambda rows: rows[0].update(decision="maybe"), "decision 'maybe' does not fit"),
    (lambda rows: next(r for r in rows if r["kind"] == "edit").update(decision="wrong_location"),
     "wrong_location needs the right location in corrected_location"),
    (lambda rows: next(r for r in rows if r["decision"] == "accept").update(corrected_location="4.4"),
     "corrected_location '4.4' goes with wrong_location only, not accept"),
])
def test_the_filled_sheet_is_still_validated_whole(scrub: dict, tmp_path: Path, capsys, change, message) -> None:
    home = scrub["home"]
    rows = _decide(read_csv(scrub["sheet"] / "decisions.csv"))
    change(rows)
    before = verify_events(home, capsys)
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "bad.csv", rows)), "--reviewer", "ann") == 1
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert verify_events(home, capsys) == before


def test_the_csv_carries_term_location_and_context_which_the_importer_only_reads(tmp_path: Path, capsys) -> None:
    home, sheet = _scrub_home(tmp_path)
    rows = read_csv(sheet / "decisions.csv")
    section = next(r for r in _by_kind(rows, "edit") if r["category"] == "incorrect_section_references")
    assert (section["term"], section["location"]) == ("5.1 (should be 5.2)", "5.3")
    assert "Upon termination under Section [-5.2-]{+5.1+}" in section["context"]
    plan = next(r for r in _by_kind(rows, "finding") if r["item_id"] == "nw-b")
    assert (plan["term"], plan["location"]) == ("Marketing Plan", "4.2") and "{+Marketing Plan+}" in plan["context"]
    filled = [dict(r, decision="accept" if r["kind"] in ("edit", "term") else "wrong", term="x", location="y",
                   context="edited in a spreadsheet") for r in rows]
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "ann.csv", filled)), "--reviewer", "ann") == 0
    assert f"{len(rows)} of {len(rows)} reviewed" in capsys.readouterr().out


def test_a_sheet_exported_before_an_audit_is_refused_after_it(tmp_path: Path, capsys) -> None:
    """vendor-w's audit adds a finding row the filled sheet never showed: the import names the cause in one line and
    writes nothing (coverage is never counted against rows nobody saw)."""
    home, sheet = _scrub_home(tmp_path)
    rows = _decide(read_csv(sheet / "decisions.csv"))
    audit = tmp_path / "w.jsonl"
    audit.write_text(json.dumps({"model": "vendor-w", "run": 1, "contract_id": "nw-c",
                                 "category": "unused_defined_terms",
                                 "findings": [{"term": "Quarterly Report", "location": "1.6"}]}) + "\n")
    assert lhl(home, "import", "findings", str(audit)) == 0
    before = verify_events(home, capsys)
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "ann.csv", rows)), "--reviewer", "ann") == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert (f"was exported from a sheet of {len(rows)} rows" in err and f"now has {len(rows) + 1}" in err
            and "answers imported since changed its rows" in err), err
    assert verify_events(home, capsys) == before
    assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(tmp_path / "again")) == 0
    again = _decide(read_csv(tmp_path / "again" / "decisions.csv"))
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "again.csv", again)), "--reviewer", "ann") == 0


def test_each_base_query_is_a_row_and_an_incomplete_one_leaves_the_gold_with_its_variants(tmp_path: Path,
                                                                                         capsys) -> None:
    home, sheet = _bench_home(tmp_path)
    rows = read_csv(sheet / "decisions.csv")
    bases = _by_kind(rows, "base")
    assert [(r["item_id"], r["context"]) for r in bases] == [("q1", DEPOSIT), ("q2", FIRED)]
    next(r for r in bases if r["item_id"] == "q2")["decision"] = "incomplete"
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "ann.csv", rows)), "--reviewer", "ann") == 0
    assert lhl(home, "review", "export", "--suite", "insufficiency", "--out", str(tmp_path / "v2")) == 0
    rows2 = read_csv(tmp_path / "v2" / "decisions.csv")
    assert {r["item_id"] for r in rows2} == {"q1", "q1a", "q1b"}  # q2 and its variant q2a are out of the gold
    capsys.readouterr()
    assert lhl(home, "insufficiency", "export", str(tmp_path / "v2.jsonl"), "--gold-version", "2") == 0
    assert [q["item_id"] for q in _lines(tmp_path / "v2.jsonl")] == ["q1", "q1a", "q1b"]
    # Scored at version 2 on q1 and its variants only: F2 (1 + 0) / 2, recall (1 + 0) / 2.
    board, m1 = _board(home, capsys)
    assert board["scope"]["gold_version"] == 2
    assert (m1["variants"], m1["base_items"], m1["f2"], m1["recall"]) == (2, 1, pytest.approx(0.5),
                                                                          pytest.approx(0.5))
