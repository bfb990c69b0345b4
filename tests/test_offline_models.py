from lhl_platform.clause.extraction.lexical import extract_clauses
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.edits import errors as perturb


def _lexical(text):
    out = extract_clauses(ExtractTask(contract_id="x", contract_text=text, clause_types=CLAUSE_TYPES))
    return {a.clause_type: a for a in out.clauses}


def test_lexical_quotes_verbatim_sentences_and_finds_cued_clauses():
    text = ("MASTER SUPPLY AGREEMENT\n\nThis Agreement is dated as of June 1, 2020 between Acme Corp. (\"Buyer\") "
            "and Zenith LLC (\"Seller\").\n1.1 This Agreement shall be governed by the laws of the State of Ohio.\n"
            "1.2 Seller shall maintain general liability insurance of at least $1,000,000.\n")
    found = _lexical(text)
    assert found["Document Name"].quotes == ["MASTER SUPPLY AGREEMENT"]
    assert found["Agreement Date"].quotes == ["June 1, 2020"]
    assert found["Parties"].quotes == ["Acme Corp.", "Zenith LLC"]
    assert "laws of the State of Ohio" in found["Governing Law"].quotes[0]
    assert found["Insurance"].present
    assert all(q in text for a in found.values() for q in a.quotes)
    assert not found["Source Code Escrow"].present and not found["Non-Compete"].present


def test_lexical_is_imperfect_on_the_demo_corpus():
    corpus = load_demo_corpus()
    truth = {(r.contract_id, r.clause_type): r.present for r in corpus.oracle}
    errors = 0
    for contract in corpus.contracts:
        for clause, answer in _lexical(contract.text).items():
            errors += answer.present != truth[(contract.contract_id, clause)]
    assert 0 < errors < len(corpus.oracle) * 0.2


def test_perturbations_change_what_they_say():
    import random

    rng = random.Random(0)
    text = "Licensee shall pay $84,000 within thirty (30) days, except as provided in Section 4."
    assert perturb.drop_condition(text, rng) is not None and "except" not in perturb.drop_condition(text, rng)
    assert "$84,000" not in perturb.change_amount(text, rng)
    assert "30" not in perturb.shift_date(text, rng)
    assert perturb.flip_modal(text, rng).startswith("Licensee may pay")
    assert perturb.add_condition(text, rng) != text
    assert perturb.drop_condition("Licensee shall pay the fee.", rng) is None
