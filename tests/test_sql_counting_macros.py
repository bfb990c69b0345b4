"""The counting blocks the clause cube's parts and the debate marts share (`outcome_counts`, `cube_rows`,
`debate_counts` in sql/clause/macros.sql) and the gold versions every reviewed suite lists (`gold_versions_of` in
sql/common/macros.sql), run on hand-made rows: each count is the one its formula names, and the model files that
call them give the rows the cube and the debate marts are built from."""

from __future__ import annotations

import duckdb
import pytest

from sql import SQL_DIR

ROWS = [  # outcome, verdict, mismatch_type, labelled
    ("TP", "supported", None, True),
    ("TP", "contradicted", "extra_condition", True),
    ("TP", "contradicted", "missing_condition", False),
    ("TP", "contradicted", "scope", True),
    ("TP", None, None, True),  # a TP the judge did not label
    ("TP", "undetermined", None, True),  # a TP the judge labelled but did not decide: neither side of judged
    ("FP", "contradicted", None, True),  # a verdict on a non-TP counts as no verdict
    ("FP", None, None, False),
    ("FN", None, None, True),
    ("TN", None, None, True),
    (None, None, None, False),  # never returned
]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute((SQL_DIR / "common" / "macros.sql").read_text())
    con.execute((SQL_DIR / "clause" / "macros.sql").read_text())
    return con


def test_outcome_counts_counts_each_formula_and_verdicts_only_on_tps(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create table r (outcome varchar, verdict varchar, mismatch_type varchar, labelled boolean)")
    con.executemany("insert into r values (?, ?, ?, ?)", ROWS)
    (counts,) = con.execute("select outcome_counts(outcome, verdict, mismatch_type, labelled) from r").fetchone()
    assert counts == {"tp": 6, "fp": 2, "fn": 1, "tn": 1, "judged": 4, "undetermined": 1, "judged_fp": 1,
                      "judged_fn": 1, "supported": 1, "contradicted": 3, "n_missing_condition": 1,
                      "n_extra_condition": 1,
                      "n_scope": 1, "missing_rows": 1}


def test_the_cube_parts_count_returned_and_missing_rows_per_their_grain(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create table instance_outcomes (model varchar, run bigint, contract_id varchar, clause_type varchar,"
                " category varchar, outcome varchar, verdict varchar, mismatch_type varchar)")
    con.executemany("insert into instance_outcomes values ('m', 1, ?, ?, 'c', ?, ?, ?)",
                    [("k1", "a", "TP", "contradicted", "scope"), ("k1", "b", "FP", None, None),
                     ("k2", "a", "FN", None, None)])
    con.execute("create table judge_cells as select * from (values ('m', 1, 'k1', true), ('m', 1, 'k2', false))"
                " t(model, run, contract_id, labelled)")
    con.execute("create table missing_rows as select 'm' as model, 1::bigint as run, 'k2' as contract_id,"
                " 'b' as clause_type, 'c' as category")
    by_clause = con.execute((SQL_DIR / "clause" / "parts" / "cube_by_clause.sql").read_text()
                            + " order by clause_type").fetchdf()
    assert list(by_clause.columns[:4]) == ["model", "run", "category", "clause_type"]
    assert by_clause[["clause_type", "tp", "fp", "fn", "judged_fp", "judged_fn", "n_scope", "missing_rows"]
                     ].values.tolist() == [["a", 1, 0, 1, 0, 0, 1, 0], ["b", 0, 1, 0, 1, 0, 0, 1]]
    by_contract = con.execute((SQL_DIR / "clause" / "parts" / "cube_by_contract.sql").read_text()
                              + " order by contract_id").fetchdf()
    assert list(by_contract.columns[:4]) == ["model", "run", "category", "contract_id"]
    assert by_contract[["contract_id", "tp", "fp", "fn", "judged_fp", "missing_rows"]].values.tolist() == [
        ["k1", 1, 1, 0, 1, 0], ["k2", 0, 0, 1, 0, 1]]


def test_debate_counts_groups_by_the_keys_named_each_side_on_its_own_cells(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create table debate_instances as select * from (values"
                " ('b', 1, null, 'x', 'k1', 'c1', 'FP', 'TN', null, null, null, null, true, 1, true, 2, 10, 5),"
                " ('b', 1, null, 'x', 'k1', 'c2', 'TP', 'TP', 'contradicted', 'extra_condition', 'supported', null,"
                "  false, 3, false, 4, 20, 5))"
                " t(backbone, run, subset, config, contract_id, category, outcome_base, outcome_debate, verdict_base,"
                " mismatch_base, verdict_debate, mismatch_debate, flipped, rounds, consensus, calls, input_tokens,"
                " output_tokens)")
    con.execute("create table debate_judge_cells as select 'b' as backbone, 1 as run, null as subset, 'x' as config,"
                " 'k1' as contract_id, true as labelled_base, false as labelled_debate")
    rows = con.execute("select * from debate_counts(debate_instances, debate_judge_cells,"
                       " ['category', 'backbone', 'run', 'subset', 'config'])").fetchdf()
    assert list(rows.columns[:6]) == ["backbone", "run", "subset", "config", "category", "decisions"]
    whole = con.execute("select decisions, base, debate, mean_rounds, flip_rate, tokens_per_decision from"
                        " debate_counts(debate_instances, debate_judge_cells, ['backbone', 'run', 'subset', 'config'])"
                        ).fetchone()
    decisions, base, debate, mean_rounds, flip_rate, tokens = whole
    assert (decisions, mean_rounds, flip_rate, tokens) == (2, 2.0, 0.5, 20.0)
    assert (base["tp"], base["fp"], base["judged_fp"], base["contradicted"], base["n_extra_condition"]) == (
        1, 1, 1, 1, 1)
    assert (debate["tp"], debate["tn"], debate["judged"], debate["supported"], debate["judged_fp"]) == (1, 1, 1, 1, 0)


def test_gold_versions_start_at_the_recorded_gold_and_take_only_the_suites_reviews(
        con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create table item_sets as select 's1' as item_set, '2026-01-01' as made_at")
    con.execute("create table stg_review_gold_version as select * from (values"
                " ('s1', 2, 1, 3, 4, ['ann', 'bo'], 1, 0, '2026-02-01', 'scrub'),"
                " ('s1', 2, 1, 9, 9, ['cy'], 9, 9, '2026-03-01', 'other'))"
                " t(item_set, gold_version, base_version, reviewed, reviewable, reviewers, changed, disagreements,"
                " time, suite)")
    rows = con.execute("select * from gold_versions_of(item_sets, 'scrub') order by gold_version").fetchall()
    assert rows == [("s1", 1, None, 0, None, 0, 0, 0, "2026-01-01"), ("s1", 2, 1, 3, 4, 2, 1, 0, "2026-02-01")]
