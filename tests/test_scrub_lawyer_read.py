"""Issue #42 item 4: the kinds of injected gold a lawyer's read of a seed-7, 44-contract CUAD build rejected, each
fixed in the parser, the injector or the verifier (never by editing items). One test (or two) per kind, on
contracts written for these tests (tests/scrub_fixtures.py and the short texts below)."""

import hashlib
import random

from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.inject import apply, incorrectly_capitalized, section_references, undefined_capitalized
from lhl_platform.scrub.items import Edit, GoldFinding, ScrubItem, Source
from lhl_platform.scrub.preexisting import item_source_defects, pre_existing_fp
from lhl_platform.scrub.reflists import reference_lists
from lhl_platform.scrub.scoring import score
from lhl_platform.scrub.style import drafting_style, shift_quantity
from lhl_platform.scrub.verify import verify_item
from tests.scrub_fixtures import CONTRACT, planted


def reasons(item, source):
    return [r.reason for r in verify_item(item, source)]


def plant(category, at, old, new, fields, source):
    """`planted` in another source contract, with that source's hash."""
    item = planted(category, at, old, new, fields, source=source)
    digest = hashlib.sha256(source.encode()).hexdigest()
    return item.model_copy(update={"source": Source(corpus="self-built", contract_id="northwind", sha256=digest)})


def with_sentence(after: str, sentence: str) -> str:
    """The fixture contract with `sentence` added after the text `after`."""
    at = CONTRACT.index(after) + len(after)
    return CONTRACT[:at] + sentence + CONTRACT[at:]


def numbered_contract(survival: str) -> str:
    """Eight articles of three sections each; section 8.3 holds `survival`."""
    parts = ['This Supply Agreement (the "Agreement") is made by Acme Parts, Inc. ("Supplier") and Beta Works LLC '
             '("Buyer").\n']
    for a in range(1, 9):
        parts.append(f"\n{a}. ARTICLE {a}\n")
        for s in range(1, 4):
            body = survival if (a, s) == (8, 3) else (
                f"Supplier shall deliver the goods of lot {a}{s} to Buyer within ten (10) days after each order, and "
                f"Buyer shall inspect the goods of lot {a}{s} within five (5) days after delivery to Buyer.")
            parts.append(f"{a}.{s} {body}\n")
    return "".join(parts)


# --- 1. several wrong references in one list, out of order ---------------------------------------------------

def test_at_most_one_reference_of_a_list_is_renumbered_and_the_list_stays_ascending():
    text = numbered_contract("The provisions of Sections 2.1, 3.2, 5.1 and 7.3 survive any termination of this "
                             "Agreement, and Section 4.2 applies to every claim.")
    doc = parse_contract(text)
    lists = reference_lists(doc)
    listed = [c for c in section_references(doc, drafting_style(text), random.Random(0), {})
              if c.start in lists]
    assert listed, "the survival list offers candidates"
    assert len({c.subject for c in listed}) == 1 and listed[0].subject is not None  # one subject: one per list
    for c in listed:
        new_text, _ = apply(text, [c])
        survived = [r.label for r in reference_lists(parse_contract(new_text))[c.start]]
        numbers = [tuple(int(p) for p in label.split(".")) for label in survived]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), survived


def test_a_list_not_in_order_in_the_source_is_left_alone():
    text = numbered_contract("The provisions of Sections 7.1, 2.2, 5.1 and 3.3 survive any termination of this "
                             "Agreement.")
    doc = parse_contract(text)
    lists = reference_lists(doc)
    assert lists and not [c for c in section_references(doc, drafting_style(text), random.Random(0), {})
                          if c.start in lists]


# --- 2. "similar Applicable Laws": a broad definition covers the "similar" thing -------------------------------

BROAD = with_sentence('1.6 "Quarterly Report" means the royalty report delivered under Section 3.2.',
                      '\n1.7 "Applicable Laws" means the applicable laws, rules, regulations and guidelines of the '
                      'Territory.')
BROAD = BROAD.replace("shall store them in a dry warehouse.",
                      "shall store them in a dry warehouse in compliance with Applicable Laws and any similar "
                      "applicable laws.")


def test_a_term_defined_broadly_is_not_made_incorrectly_capitalised_after_a_generic_word():
    doc = parse_contract(BROAD)
    assert doc.names_a_class("Applicable Laws") and not doc.names_a_class("Territory")
    made = incorrectly_capitalized(doc, drafting_style(BROAD), random.Random(0), {})
    assert not [i for i in made if i.fields["term"] == "Applicable Laws"]
    item = plant("incorrectly_capitalized_terms", "similar applicable laws", "applicable laws", "Applicable Laws",
                   {"term": "Applicable Laws", "location": "4.1"}, BROAD)
    assert reasons(item, BROAD) == ["definition_covers_it"]


# --- 3. a location in the wrong section: the numbering misread ------------------------------------------------

RUN_TOGETHER = ('This Collaboration Agreement (the "Agreement") is made by Cardinal Labs, Inc. ("Cardinal") and '
                'Capsule Works LLC ("Capsule").\n\n'
                "1. GENERAL\n\n1.1 Cardinal shall supply the active ingredient to Capsule each quarter.\n\n"
                "1.2 Capsule shall manufacture the capsules for Cardinal each quarter.\n\n"
                "Section 3   Intellectual Property   3.1 Background IP. Cardinal shall keep its own background IP. "
                "[***].   3.4 Use of Information. Cardinal may use the information of Capsule for the program.   "
                "Section 4   Exclusivity   [***]   Section 5   Consideration   5.1 Royalty Payments. Capsule shall "
                "pay to Cardinal a royalty within thirty (30) days after each quarter.   5.2 Mode of Payment. Capsule "
                "shall pay every amount to Cardinal by wire transfer.\n\n"
                "6. TERM\n\n6.1 This Agreement lasts five (5) years and binds Cardinal and Capsule.\n")


def test_a_redacted_section_and_unnumbered_articles_run_into_the_text_do_not_shift_later_locations():
    doc = parse_contract(RUN_TOGETHER)
    assert doc.location(RUN_TOGETHER.index("Capsule shall pay every amount")) == "5.2"
    assert doc.location(RUN_TOGETHER.index("Cardinal may use the information")) == "3.4"
    assert [s.label for s in doc.sections if s.depth == 0] == ["1", "3", "4", "5", "6"]


def test_the_verifier_rejects_a_location_that_a_later_heading_shows_wrong():
    # 3.7 five numbers past 3.2 is beyond what the parser accepts in run-together text, so it reads 3.2 on; the
    # heading "3.7 Licensor may audit" still stands between the start of 3.2 and the edit.
    source = CONTRACT.replace("\n3.3 Licensor may audit", " 3.7 Audit. Licensor may audit")
    assert parse_contract(source).location(source.index("Licensor may audit")) == "3.2"
    item = plant("incorrect_party_references", "Licensor may audit", "Licensor", "Licensee",
                   {"wrong": "Licensee", "correct": "Licensor", "location": "3.2"}, source)
    assert reasons(item, source) == ["location_not_containing"]


# --- 4. words and figures of an amount that disagree ------------------------------------------------------------

INSURED = with_sentence("shall store them in a dry warehouse.",
                        " Licensee shall carry insurance of One Million Dollars ($1,000,000) per occurrence.")


def test_a_figure_spelled_out_in_words_is_not_changed_alone():
    at = INSURED.index("$1,000,000")
    assert shift_quantity(INSURED, at, at + len("$1,000,000"), 0) is None
    assert shift_quantity("a fee of $1,000,000 per year", 9, 19, 0) is not None  # no words: it can change


def test_the_verifier_rejects_an_edit_that_leaves_words_and_figures_apart():
    item = plant("inconsistent_language", "($1,000,000)", "$1,000,000", "$1,500,000",
                   {"location": "4.1", "location_2": "6.2"}, INSURED)
    assert "style_amount_mismatch" in reasons(item, INSURED)


# --- 5. edits too close to each other -------------------------------------------------------------------------

def test_two_edits_closer_than_150_characters_are_not_both_kept():
    first = CONTRACT.index("Licensed Products in the Territory from")
    second = CONTRACT.index("Licensed Products outside the Territory")
    assert 0 < second - first < 150
    text = CONTRACT
    for at in (second, first):
        text = text[:at] + "licensed products" + text[at + len("Licensed Products"):]
    doc = parse_contract(text)
    gold = [GoldFinding(category="defined_terms", term=d.term, location=d.location) for d in doc.definitions]
    gold += [GoldFinding(category="uncapitalized_defined_terms", term="Licensed Products", location=loc,
                         edit=Edit(start=at, end=at + len("Licensed Products"), original="Licensed Products"))
             for at, loc in ((first, "2.1"), (second, "2.2"))]
    source = planted("uncapitalized_defined_terms", "keep the Licensed Products", "Licensed Products",
                     "licensed products", {"term": "Licensed Products", "location": "4.1"}).source
    item = ScrubItem(contract_id="northwind", text=text, gold=tuple(gold), source=source)
    found = verify_item(item, CONTRACT)
    assert [(r.reason, item.gold[r.gold_index or 0].location) for r in found] == [("edits_too_close", "2.2")]


# --- 6. capitalised verb phrases as undefined terms -----------------------------------------------------------

HIRING = with_sentence("shall store them in a dry warehouse.",
                       " Licensee shall be free to hire personnel for the warehouse and to train personnel there.")


def test_a_verb_and_its_object_is_never_an_undefined_capitalised_term():
    doc = parse_contract(HIRING)
    made = {i.fields["term"] for i in undefined_capitalized(doc, drafting_style(HIRING), random.Random(0), {})}
    assert "Hire Personnel" not in made and "Train Personnel" not in made
    item = plant("undefined_capitalized_terms", "to hire personnel", "hire personnel", "Hire Personnel",
                   {"term": "Hire Personnel", "location": "4.1"}, HIRING)
    assert reasons(item, HIRING) == ["undefined_term_is_verb_phrase"]


# --- 7. a typo of the source made a term --------------------------------------------------------------------

TYPO = with_sentence("shall store them in a dry warehouse.",
                     " Licensee shall keep its records and usesuch information only for this license.")


def test_a_run_together_typo_is_never_made_a_term():
    doc = parse_contract(TYPO)
    made = {i.fields["term"] for i in undefined_capitalized(doc, drafting_style(TYPO), random.Random(0), {})}
    assert "Usesuch Information" not in made
    item = plant("undefined_capitalized_terms", "usesuch information", "usesuch information",
                   "Usesuch Information", {"term": "Usesuch Information", "location": "4.1"}, TYPO)
    assert reasons(item, TYPO) == ["term_not_words"]


# --- 8. inline (a)/(b) of a definition read as sub-sections ---------------------------------------------------

INLINE = ('This Transportation Agreement (the "Agreement") is made by Pipeline Co. LLC ("Carrier") and Refining '
          'Inc. ("Shipper").\n\n1. Definitions\n\n'
          '"Confidential Information" means information of a Party; provided that it does not include information '
          'that a receiving Party can show (a) has been published or (b) was known to it before.\n\n'
          '"Quarterly Volume" means the volume of Product equal to: (a) volume per day multiplied by; (b) the '
          'number of days in the quarter.\n\n"Representatives" means the officers and employees of a Party.\n\n'
          "2. Term\n\n2.1 This Agreement lasts five (5) years. (a) Carrier shall carry the Product. (b) Shipper "
          "shall pay the tariff.\n")


def test_an_inline_enumeration_within_a_sentence_is_not_a_sub_section():
    doc = parse_contract(INLINE)
    assert {d.term: d.location for d in doc.definitions if d.location != "P"} == {
        "Confidential Information": "1", "Quarterly Volume": "1", "Representatives": "1"}
    # after a full stop, a lettered item does start a paragraph
    assert [s.label for s in doc.sections] == ["1", "2", "2.1", "2.1(a)", "2.1(b)"]


# --- 9. the source's own defects -----------------------------------------------------------------------------

def test_a_finding_of_a_defect_the_source_already_had_is_counted_apart_and_precision_is_unchanged():
    item = planted("uncapitalized_defined_terms", "keep the Licensed Products", "Licensed Products",
                   "licensed products", {"term": "Licensed Products", "location": "4.1"})
    own = {(f.category, f.term, f.location) for f in item_source_defects(item)}
    # 7.1 writes "each party" where "Party" is defined; the injected 4.1 edit is not the source's
    assert ("uncapitalized_defined_terms", "Party", "7.1") in own
    assert ("uncapitalized_defined_terms", "Licensed Products", "4.1") not in own
    found = [GoldFinding(category="uncapitalized_defined_terms", term=t, location=loc)
             for t, loc in (("Licensed Products", "4.1"), ("Party", "7.1"), ("Territory", "2.1"))]
    answers = {(1, "northwind", "uncapitalized_defined_terms"): found}
    row = next(r for r in score([item], answers).by_category if r.category == "uncapitalized_defined_terms")
    assert (row.tp, row.fp) == (1, 2)  # precision as before: 1/3
    assert pre_existing_fp([item], answers)["uncapitalized_defined_terms"] == 1
