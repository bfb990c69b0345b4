"""One scope builder for every suite: what a suite declares (`SuiteScope`) is all `apply_scope` needs, whether its
items are a corpus's contracts or an item set's items. Checked on small hand-made cells in an in-memory DuckDB."""

import duckdb
import pytest

from lhl_platform.warehouse.scope import ScopeError, ScopeRequest, SuiteScope, apply_scope, check_names, scope_key

ITEMS = SuiteScope(suite="toyset", cells="cells", judged=True, default_judge="cue", judgments="judgments",
                   gold="gold")
CORPUS = SuiteScope(suite="clausey", items="corpus", cells="int_audit_scope", judged=True, judgments="int_verdicts",
                    registered=True, shared=True)


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    con.execute("""create table cells as select * from (values
        ('a', 1, 'old', 'i1', 1), ('a', 1, 'new', 'i1', 5), ('a', 1, 'new', 'i2', 5), ('a', 2, 'new', 'i1', 5),
        ('b', 3, 'new', 'i1', 6), ('b', 3, 'new', 'i2', 6)) t(model, run, item_set, item, time)""")
    con.execute("""create table judgments as select * from (values ('new', 'cue'), ('new', 'llm'), ('old', 'x'))
                   t(item_set, judge)""")
    con.execute("""create table gold as select * from (values ('new', 1, 0, 4, 0), ('new', 2, 3, 4, 2))
                   t(item_set, gold_version, reviewed, reviewable, reviewers)""")
    con.execute("""create table int_corpora as select * from (values ('c1', 'demo', true, 2), ('c2', 'cuad', false, 1))
                   t(corpus_id, corpus_name, is_active, last_ingested)""")
    con.execute("""create table oracle as select * from (values ('c1', 'k1'), ('c1', 'k2'), ('c1', 'k3'))
                   t(corpus_id, contract_id)""")
    con.execute("""create table int_audit_scope as select * from (values ('c1', 'lex', 1, 'k1'),
                   ('c1', 'lex', 2, 'k2'), ('c1', 'sim', 1, 'k1'), ('c2', 'far', 1, 'z9')) t(corpus_id, model, run,
                   contract_id)""")
    con.execute("create table stg_subset_created as select 's2' as name, ['k1', 'k2'] as contract_ids")
    con.execute("""create table stg_model_registered as select * from (values ('lex', 'model'), ('idle', 'model'),
                   ('surface', 'judge')) t(name, role)""")
    con.execute("create table int_verdicts as select 'rubric' as judge")
    yield con
    con.close()


def test_an_item_set_scope_fills_its_defaults_from_the_cells_recorded_last(con):
    scope = apply_scope(con, ITEMS, ScopeRequest(suite="toyset"), "rubric", temp=True)
    assert (scope.item_set, scope.models, scope.runs, scope.items, scope.judge) == ("new", ["a", "b"], [1, 2, 3], 2,
                                                                                    "cue")
    assert (scope.gold_version, scope.gold_reviewed, scope.gold_reviewers) == (2, 3, 2)  # the latest version
    assert con.execute("select * from toyset_scope").fetchall() == [("new", "cue", 2)]
    assert sorted(r[0] for r in con.execute("select item from toyset_scope_items").fetchall()) == ["i1", "i2"]
    # the runs of the models asked for, not of every model
    assert apply_scope(con, ITEMS, ScopeRequest(suite="toyset", models=("a",)), "rubric", temp=True).runs == [1, 2]
    older = apply_scope(con, ITEMS, ScopeRequest(suite="toyset", item_set="old", judge="x"), "rubric", temp=True)
    assert (older.models, older.runs, older.items, older.gold_version) == (["a"], [1], 1, None)


def test_a_corpus_scope_is_resolved_by_the_same_builder(con):
    scope = apply_scope(con, CORPUS, ScopeRequest(), "rubric", temp=True)
    assert (scope.item_set, scope.models, scope.runs, scope.items, scope.judge) == ("c1", ["lex", "sim"], [1, 2], 3,
                                                                                    "rubric")
    assert con.execute("select * from scope").fetchall() == [("c1", "demo", None, "rubric")]
    subset = apply_scope(con, CORPUS, ScopeRequest(subset="s2", models=("sim",)), "rubric", temp=True)
    assert (subset.items, subset.runs) == (2, [1])
    assert sorted(r[0] for r in con.execute("select contract_id from scope_contracts").fetchall()) == ["k1", "k2"]
    # a registered scope takes a registered model or judge with nothing in scope (its figures are then empty)
    idle = apply_scope(con, CORPUS, ScopeRequest(models=("idle",), judge="surface", runs=(9,)), "rubric", temp=True)
    assert (idle.models, idle.runs, idle.judge) == (["idle"], [9], "surface")
    by_name = apply_scope(con, CORPUS, ScopeRequest(corpus="cuad"), "rubric", temp=True)
    assert (by_name.item_set, by_name.models, by_name.items) == ("c2", ["far"], 1)


def test_equal_scopes_have_equal_keys(con):
    apply_scope(con, ITEMS, ScopeRequest(suite="toyset"), "rubric", temp=True)
    default = scope_key(con, ITEMS)
    apply_scope(con, ITEMS, ScopeRequest(suite="toyset", item_set="new", runs=(1, 2, 3), judge="cue"), "rubric",
                temp=True)
    assert scope_key(con, ITEMS) == default
    apply_scope(con, ITEMS, ScopeRequest(suite="toyset", runs=(1,)), "rubric", temp=True)
    assert scope_key(con, ITEMS) != default


@pytest.mark.parametrize("scope, request_, message", [
    (ITEMS, ScopeRequest(models=("a", "zz", "yy")),
     "unknown models 'zz', 'yy' are not audited on the toyset item set new; audited: a, b"),
    (ITEMS, ScopeRequest(runs=(7,)), "unknown run 7 is not audited on the toyset item set new; audited: 1, 2, 3"),
    (ITEMS, ScopeRequest(judge="x"), "unknown judge 'x' has judged nothing of the toyset item set new; judged by: "
                                     "cue, llm"),
    (ITEMS, ScopeRequest(item_set="nope"), "unknown item set 'nope' is not audited in suite toyset; audited: new, "
                                           "old"),
    (ITEMS, ScopeRequest(gold_version=5), "the toyset item set new has no gold version 5; versions: 1, 2"),
    (ITEMS, ScopeRequest(subset="s2"), "suite toyset has no subsets: --subset does not apply"),
    (ITEMS.model_copy(update={"gold": None}), ScopeRequest(gold_version=1),
     "suite toyset has no gold versions: --gold-version does not apply"),
    (ITEMS.model_copy(update={"judged": False}), ScopeRequest(judge="cue"),
     "suite toyset is scored without a judge: --judge does not apply"),
    (CORPUS, ScopeRequest(models=("lexx",)), "unknown model 'lexx' is not audited or registered; audited in corpus "
                                             "demo: lex, sim; see `lhl models list`"),
    (CORPUS, ScopeRequest(judge="nope"), "unknown judge 'nope' is not registered and has judged nothing; judges: "
                                         "rubric, surface; register one with `lhl models add NAME"),
    (CORPUS, ScopeRequest(item_set="new"), "suite clausey has no item sets: --item-set does not apply"),
    (CORPUS, ScopeRequest(corpus="nope"), "--corpus 'nope' is not a stored corpus; stored corpora: c2 (cuad), "
                                          "c1 (demo)"),
    (CORPUS, ScopeRequest(subset="nope"), "no subset named 'nope'"),
])
def test_a_name_the_scope_does_not_know_is_one_line_naming_the_known_ones(con, scope, request_, message):
    with pytest.raises(ScopeError) as raised:
        apply_scope(con, scope, request_.model_copy(update={"suite": scope.suite}), "rubric", temp=True)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_the_names_of_written_scope_tables_are_checked_again(con):
    apply_scope(con, ITEMS, ScopeRequest(suite="toyset"), "rubric", temp=True)
    check_names(con, ITEMS)  # what the builder wrote passes
    con.execute("create or replace temp table toyset_scope_models as select 'ghost' as model")
    with pytest.raises(ScopeError, match="unknown model 'ghost' is not audited"):
        check_names(con, ITEMS)
