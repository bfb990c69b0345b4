from lhl_platform.corpus.demo import DEMO_DIR, load_demo_corpus, render_files
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, Category


def test_rendered_demo_files_are_in_step_with_their_sources():
    for rel, content in render_files().items():
        assert (DEMO_DIR / rel).read_text(encoding="utf-8") == content, f"{rel}: run python -m lhl_platform.corpus.demo"


def test_demo_corpus_covers_every_type_and_category_with_many_absences():
    corpus = load_demo_corpus()
    assert 10 <= len(corpus.contracts) <= 15
    present_types = {r.clause_type for r in corpus.oracle if r.present}
    assert present_types == set(CLAUSE_TYPES)
    assert {r.category for r in corpus.oracle if r.present} == set(Category)
    share_present = corpus.n_present / len(corpus.oracle)
    assert 0.15 < share_present < 0.5


def test_every_annotated_span_is_verbatim_in_its_contract():
    corpus = load_demo_corpus()
    texts = {c.contract_id: c.text for c in corpus.contracts}
    for row in corpus.oracle:
        for span in row.spans:
            assert span in texts[row.contract_id]
