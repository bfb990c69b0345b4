import time
import unicodedata

import pytest

from lhl_platform.corpus.cuad import CorpusError, load_master_layout, match_key
from lhl_platform.domain.taxonomy import Category


def test_loads_all_of_cuad_v1_with_the_published_counts(cuad_dir):
    started = time.perf_counter()
    corpus = load_master_layout(cuad_dir)
    elapsed = time.perf_counter() - started
    assert len(corpus.contracts) == 510
    assert len(corpus.oracle) == 20_910
    assert corpus.n_present == 6_702
    assert len({c.contract_id for c in corpus.contracts}) == 510
    assert elapsed < 60, "loading 510 contracts must take seconds, not minutes"


def test_cuad_categories_and_parsed_contexts(cuad_dir):
    corpus = load_master_layout(cuad_dir)
    by_cat = {}
    for row in corpus.oracle:
        by_cat.setdefault(row.category, set()).add(row.clause_type)
    assert {c: len(v) for c, v in by_cat.items()} == {
        Category.FACTUAL: 3, Category.TEMPORAL: 6, Category.NUMERIC: 5, Category.OBLIGATION: 27}
    parties = [r for r in corpus.oracle if r.clause_type == "Parties" and r.present]
    assert all(isinstance(s, str) and s for r in parties for s in r.spans)


QUIRKS = [
    ("ampersand became underscore", "MOELIS&CO_03_24_2014-EX-10.19-STRATEGIC ALLIANCE AGREEMENT.PDF",
     "MOELIS_CO_03_24_2014-EX-10.19-STRATEGIC ALLIANCE AGREEMENT.txt"),
    ("apostrophe became underscore", "MACY'S,INC_05_11_2020-EX-99.4-JOINT FILING AGREEMENT.PDF",
     "MACY_S,INC_05_11_2020-EX-99.4-JOINT FILING AGREEMENT.txt"),
    ("trailing space", "ELECTRAMECCANICA VEHICLES CORP. - Manufacturing Agreement .PDF",
     "ELECTRAMECCANICA VEHICLES CORP. - Manufacturing Agreement.txt"),
    ("trailing dot", "ASHWORTHINC-PROMOTION AGREEMENT AND NANTZ COMMUNICATIONS, INC..PDF",
     "ASHWORTHINC-PROMOTION AGREEMENT AND NANTZ COMMUNICATIONS, INC.txt"),
    ("trailing hyphen", "NETGEAR,INC-AMENDMENT TO THE DISTRIBUTOR AGREEMENT-.pdf",
     "NETGEAR,INC-AMENDMENT TO THE DISTRIBUTOR AGREEMENT.txt"),
    ("quote after extension", "KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.PDF'",
     "KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.txt"),
    ("other unicode normal form", unicodedata.normalize("NFD", "LECLANCHÉ S.A. - JDA.PDF"),
     unicodedata.normalize("NFC", "LECLANCHÉ S.A. - JDA.txt")),
    ("trailing space kept in text name", "Monsanto - SECOND A&R AGENCY AGREEMENT .PDF",
     "Monsanto - SECOND A_R AGENCY AGREEMENT .txt"),
]


@pytest.mark.parametrize(("quirk", "csv_name", "txt_name"), QUIRKS, ids=[q[0] for q in QUIRKS])
def test_each_filename_quirk_is_matched_by_the_general_rule(mini_layout, quirk, csv_name, txt_name):
    root = mini_layout([(csv_name, txt_name, {"Governing Law": ["laws of Delaware"]}),
                        ("Plain.pdf", "Plain.txt", {})])
    corpus = load_master_layout(root)
    assert len(corpus.contracts) == 2
    assert match_key(csv_name) == match_key(txt_name)
    assert sum(r.present for r in corpus.oracle) == 1


def test_answer_column_with_space_after_hyphen_is_accepted(mini_layout):
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    header = ["Filename"] + [x for c in CLAUSE_TYPES for x in (c, f"{c}-Answer")]
    header[header.index("Notice Period To Terminate Renewal-Answer")] = "Notice Period To Terminate Renewal- Answer"
    root = mini_layout([("A.pdf", "A.txt", {})], header=header)
    assert len(load_master_layout(root).oracle) == 41


def test_missing_text_file_names_the_row(mini_layout):
    root = mini_layout([("Present.pdf", "Present.txt", {}), ("Lost Contract.pdf", None, {})])
    with pytest.raises(CorpusError, match="Lost Contract.pdf"):
        load_master_layout(root)


def test_text_file_without_row_is_an_error(mini_layout):
    root = mini_layout([("A.pdf", "A.txt", {})])
    (root / "full_contract_txt" / "Orphan.txt").write_text("x")
    with pytest.raises(CorpusError, match="Orphan.txt"):
        load_master_layout(root)


def test_unknown_column_is_named(mini_layout):
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    header = ["Filename"] + [x for c in CLAUSE_TYPES for x in (c, f"{c}-Answer")] + ["Force Majeure"]
    root = mini_layout([], header=header)
    with pytest.raises(CorpusError, match="unknown column 'Force Majeure'"):
        load_master_layout(root)


def test_undecodable_text_file_is_named(mini_layout):
    root = mini_layout([("A.pdf", "A.txt", {})])
    (root / "full_contract_txt" / "A.txt").write_bytes(b"AGREEMENT \xff\xfe broken")
    with pytest.raises(CorpusError, match=r"A\.txt: not valid UTF-8"):
        load_master_layout(root)


def test_bad_context_literal_names_row_and_column(mini_layout):
    root = mini_layout([("A.pdf", "A.txt", {})])
    csv_path = root / "master_clauses.csv"
    text = csv_path.read_text().replace("A.pdf,[]", "A.pdf,[unclosed", 1)
    csv_path.write_text(text)
    with pytest.raises(CorpusError, match=r"master_clauses.csv:2 column 'Document Name'"):
        load_master_layout(root)


def test_ambiguous_names_are_refused_rather_than_guessed(mini_layout):
    root = mini_layout([("A&B.pdf", "A_B.txt", {}), ("A'B.pdf", None, {})])
    with pytest.raises(CorpusError, match="duplicates row 2"):
        load_master_layout(root)
