"""InsufficiencyBench scored as the seed scores it (issue #26): only required elements are gold; intervals resample
base queries, a variant going with its base; an external item set is described as what it is; a model missing
items in scope has null figures, is listed as incomplete with its coverage and is not ranked.

The SQL path runs on a tiny hand-made external set through the CLI (`lhl ingest insufficiency`, `lhl import
judgments`, `lhl report --suite insufficiency`) on a real DuckDB warehouse; every expected number is computed by
hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lhl_platform.home import Home
from lhl_platform.insufficiency.intervals import cluster_mean_interval, cluster_means
from lhl_platform.insufficiency.items import (
    Category,
    Item,
    ItemFileError,
    ItemKind,
    MissingElement,
    dump_items,
    load_items,
)
from lhl_platform.insufficiency.records import AdditionalClaim, ElementVerdict, ItemJudgment, ItemResponse
from lhl_platform.insufficiency.scoring import category_recall, leaderboard, score_item
from lhl_platform.insufficiency.task import judge_tasks
from orchestration.cli import main


def element(tag: str, category: Category, required: bool = True) -> MissingElement:
    return MissingElement(sub_tag=tag, category=category, required=required, explanation=f"why {tag} matters")


def item(item_id: str, base_id: str, *elements: MissingElement) -> Item:
    kind = ItemKind.VARIANT if elements else ItemKind.BASE
    return Item(item_id=item_id, base_id=base_id, kind=kind, domain="employment", jurisdiction="US-CA",
                query=f"the query of {item_id}", missing_elements=elements)


# The tiny set: two base queries with two variants each; b1a records a non-required element (union_status).
B1A = item("b1a", "b1", element("jurisdiction", Category.JURISDICTION),
           element("employer_size", Category.PARTIES_AND_STATUS),
           element("union_status", Category.PARTIES_AND_STATUS, required=False))
TINY = (item("b1", "b1"), B1A, item("b1b", "b1", element("jurisdiction", Category.JURISDICTION)),
        item("b2", "b2"), item("b2a", "b2", element("timing", Category.TIMING)),
        item("b2b", "b2", element("consideration", Category.CONSIDERATION)))
DESCRIPTION = "Six hand-made queries written for the InsufficiencyBench scoring tests (version 3, CC0)"


def judgment(it: Item, identified: tuple[str, ...] = (), claims: int = 0, *, model: str = "m",
             fabricated: tuple[str, ...] = (), explained: tuple[str, ...] = (),
             verdicts: tuple[str, ...] | None = None) -> ItemJudgment:
    tags = it.gold if verdicts is None else verdicts
    return ItemJudgment(model=model, run=1, judge="j", item_id=it.item_id, identified_elements=identified,
                        additional_claims=tuple(AdditionalClaim(label=f"gap_{n}", span="...") for n in range(claims)),
                        claimed_anything_missing=bool(identified or claims),
                        elements=tuple(ElementVerdict(sub_tag=t, explanation_matches=t in explained,
                                                      fabricated=t in fabricated) for t in tags))


# b1a: names jurisdiction (gold) and union_status (not required), claims one other gap; the judge (an external one,
# shown every element) also gave verdicts on union_status, which are accepted and not scored.
B1A_JUDGMENT = judgment(B1A, ("jurisdiction", "union_status"), claims=1, fabricated=("employer_size", "union_status"),
                        explained=("jurisdiction", "union_status"),
                        verdicts=("jurisdiction", "employer_size", "union_status"))
JUDGMENTS = (B1A_JUDGMENT, judgment(TINY[2], ("jurisdiction",)), judgment(TINY[4]),
             judgment(TINY[5], ("consideration",)), judgment(TINY[0]), judgment(TINY[3]))
# Hand-computed, b1a: gold = {jurisdiction, employer_size}; TP 1; FP = 1 claim + union_status named = 2; FN 1;
# P = 1/3, R = 1/2, F2 = 5 * 1/3 * 1/2 / (4/3 + 1/2) = 5/11; ExplAcc 1/1; Safety 1 - 1/2 (union_status not counted).
# (Were union_status gold: TP 2, FP 1, P = R = 2/3, F2 = 2/3, Safety 1/3.)
B1A_F2 = 5 / 11
# The model: F2 over the four variants = (5/11 + 1 + 0 + 1) / 4 = 27/44; recall (1/2 + 1 + 0 + 1) / 4 = 5/8.
MODEL_F2, MODEL_RECALL = 27 / 44, 5 / 8


# 1. Only required elements are gold ----------------------------------------------------------------------

def test_a_non_required_element_is_not_gold_and_naming_it_is_an_additional_claim() -> None:
    assert B1A.gold == ("jurisdiction", "employer_size") and B1A.non_required == ("union_status",)
    s = score_item(B1A, B1A_JUDGMENT)
    assert (s.gold, s.tp, s.fp, s.fn, s.non_required_named, s.dropped) == (2, 1, 2, 1, 1, 0)
    assert s.precision == pytest.approx(1 / 3) and s.recall == 0.5
    assert s.f2 == pytest.approx(B1A_F2) and s.expl_acc == 1.0 and s.safety == 0.5
    # not naming it is not a miss either: asking for exactly the two required elements is a perfect answer
    perfect = score_item(B1A, judgment(B1A, ("jurisdiction", "employer_size")))
    assert (perfect.recall, perfect.precision, perfect.f2) == (1.0, 1.0, 1.0)
    (figures,) = leaderboard(TINY, JUDGMENTS, resamples=50)
    assert figures.f2 == pytest.approx(MODEL_F2) and figures.recall == pytest.approx(MODEL_RECALL)
    rows = {r.category: r for r in category_recall(TINY, JUDGMENTS)}
    assert (rows[Category.PARTIES_AND_STATUS].gold, rows[Category.PARTIES_AND_STATUS].hits) == (1, 0)


def test_the_judge_is_shown_the_required_elements_only() -> None:
    response = ItemResponse(model="m", run=1, item_id="b1a", response="Which state are you in?")
    identify, explain = judge_tasks(B1A, response)
    assert identify.missing_elements == ("jurisdiction", "employer_size")
    assert explain is not None and [e.sub_tag for e in explain.elements] == ["jurisdiction", "employer_size"]


def test_a_variant_with_no_required_element_is_refused_at_load(tmp_path: Path) -> None:
    bad = TINY[0].model_dump(mode="json") | {"item_id": "b1c", "kind": "variant", "missing_elements": [
        {"sub_tag": "union_status", "category": "parties_and_status", "required": False, "explanation": "x"}]}
    path = tmp_path / "bad.jsonl"
    path.write_text(dump_items(TINY[:1]) + json.dumps(bad) + "\n")
    with pytest.raises(ItemFileError, match="line 2: .*at least one required missing element"):
        load_items(path)


# 2. Intervals resample base queries ----------------------------------------------------------------------

def _split_bases() -> tuple[tuple[Item, ...], list[ItemJudgment]]:
    """Two base queries with three variants each: every variant of b1 is answered perfectly, none of b2's."""
    items = tuple(item(f"{b}{s}", b, element("jurisdiction", Category.JURISDICTION)) for b in ("b1", "b2")
                  for s in "abc")
    return items, [judgment(i, ("jurisdiction",) if i.base_id == "b1" else ()) for i in items]


def test_the_f2_interval_resamples_base_queries_not_variants() -> None:
    items, judgments = _split_bases()
    (f,) = leaderboard(items, judgments, resamples=2000)
    assert f.f2 == 0.5
    # Drawing two bases: both b1 (mean 1), one of each (0.5), both b2 (0), each b1-only and b2-only draw with
    # probability 1/4, so the 95% interval is [0, 1]. Drawing the six variants independently would give about
    # [1/6, 5/6] (six draws all from b2 has probability 1/64 < 2.5%): this test fails under variant resampling.
    assert (f.f2_ci_low, f.f2_ci_high) == (0.0, 1.0)
    by_variant = cluster_mean_interval({s.item_id: [s.f2] for s in (score_item(i, j) for i, j in
                                                                     zip(items, judgments, strict=True))},
                                       resamples=2000, key="m|j|f2")
    assert by_variant[0] is not None and by_variant[1] is not None
    assert by_variant[0] > 0.0 and by_variant[1] < 1.0


def test_a_base_query_is_drawn_with_all_its_variants() -> None:
    # values unique per variant: a draw that split a base would give a mean outside the three possible ones
    clusters: dict[str, list[float | None]] = {"b1": [0.1, 0.2, 0.9], "b2": [0.3, None, 0.4, 0.05]}
    means = cluster_means(clusters, resamples=500, key="k")
    a, b = sum([0.1, 0.2, 0.9]), sum([0.3, 0.4, 0.05])
    possible = {round(a / 3, 12), round((a + b) / 6, 12), round(b / 3, 12)}
    assert means.size == 500 and {round(float(m), 12) for m in means} <= possible
    assert len({round(float(m), 12) for m in means}) == 3  # and all three occur


# 3, 5. The SQL path on the external set: descriptions, incomplete models ------------------------------------

def lhl(home: Home, *args: str) -> int:
    return main(["--home", str(home.root), *args])


def _line(j: ItemJudgment) -> str:
    return json.dumps(j.model_dump(mode="json"))


@pytest.fixture(scope="module")
def tiny_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("paper-rules")
    home = Home.resolve(root / "home").ensure()
    items = root / "tiny.jsonl"
    items.write_text(dump_items(TINY))
    assert lhl(home, "ingest", "insufficiency", str(items), "--name", "tiny-set", "--description", DESCRIPTION) == 0
    partial = [j.model_copy(update={"model": "partial"}) for j in JUDGMENTS if j.item_id != "b2b"]
    lines = root / "judgments.jsonl"
    lines.write_text("".join(_line(j) + "\n" for j in (*JUDGMENTS, *partial)))
    assert lhl(home, "import", "judgments", str(lines)) == 0
    return home


def _report(home: Home, capsys: pytest.CaptureFixture[str], fmt: str = "json") -> Any:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "insufficiency", "--judge", "j", "--format", fmt) == 0
    out = capsys.readouterr().out
    return json.loads(out) if fmt == "json" else out


def test_the_marts_score_required_elements_only(tiny_home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    from lhl_platform.warehouse.build import read_warehouse
    from lhl_platform.warehouse.scope import ScopeRequest

    with read_warehouse(tiny_home, ScopeRequest(suite="insufficiency", judge="j")) as con:
        row = con.execute("select gold, tp, fp, fn, non_required_named, dropped, f2, safety from insufficiency_units "
                          "where model = 'm' and unit = 'b1a'").fetchone()
    assert row is not None and row[:6] == (2, 1, 2, 1, 1, 0)
    assert row[6] == pytest.approx(B1A_F2) and row[7] == 0.5
    report = _report(tiny_home, capsys)
    board = {r["model"]: r for r in report["leaderboard"]}
    assert board["m"]["f2"] == pytest.approx(MODEL_F2) and board["m"]["recall"] == pytest.approx(MODEL_RECALL)
    (expected,) = leaderboard(TINY, JUDGMENTS)  # the same base-query intervals through SQL and the domain
    assert (board["m"]["f2_ci_low"], board["m"]["f2_ci_high"]) == pytest.approx((expected.f2_ci_low,
                                                                                  expected.f2_ci_high))
    parties = next(r for r in report["by_category"] if r["model"] == "m" and r["category"] == "parties_and_status")
    assert (parties["gold"], parties["hits"], parties["recall"]) == (1, 0, 0.0)
    (item_set,) = report["item_set"]
    assert (item_set["gold_elements"], item_set["non_required_elements"], item_set["missing_elements"]) == (5, 1, 6)


def test_an_external_set_is_described_as_what_it_is(tiny_home: Home, capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    (item_set,) = _report(tiny_home, capsys)["item_set"]
    assert (item_set["name"], item_set["provenance"], item_set["self_built"]) == ("tiny-set", "external", False)
    assert item_set["description"] == DESCRIPTION and item_set["source"].endswith("tiny.jsonl")
    assert DESCRIPTION in item_set["about"] and "external" in item_set["about"]
    for fmt in ("table", "md"):
        out = _report(tiny_home, capsys, fmt)
        assert DESCRIPTION in out and "self-built" not in out
    page = tmp_path / "report.html"
    assert lhl(tiny_home, "report", "--suite", "insufficiency", "--judge", "j", "--format", "html", "--out",
               str(page)) == 0
    html = page.read_text()
    assert DESCRIPTION in html and "self-built" not in html
    # without a description it says none was given, never borrowing the self-built set's words
    bare = load_items(tiny_home.root.parent / "tiny.jsonl")
    assert bare.description == "" and bare.provenance == "external"


def test_an_incomplete_model_has_null_figures_its_coverage_and_no_rank(tiny_home: Home,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tiny_home, capsys)
    assert [r["model"] for r in report["leaderboard"]] == ["m", "partial"]  # ranked first, then the others
    complete, partial = report["leaderboard"]
    assert complete["complete"] is True and complete["rank"] == 1 and (complete["judged"], complete["cells"]) == (6, 6)
    assert complete["coverage"] == "6 of 6 responses judged (6 items x run 1); complete, rank 1"
    # partial lacks b2b: its three other variants would average (5/11 + 1 + 0) / 3, which is not reported
    assert partial["complete"] is False and partial["rank"] is None and (partial["judged"], partial["cells"]) == (5, 6)
    assert all(partial[f] is None for f in ("f2", "f2_ci_low", "f2_ci_high", "precision", "recall", "hedge_rate",
                                            "f2_given_hedge", "expl_acc", "safety", "over_flag"))
    assert partial["variants"] == 3 and partial["base_items"] == 2  # what it has is counted, not scored
    assert partial["coverage"] == ("5 of 6 responses judged (6 items x run 1); incomplete, 1 missing: figures null, "
                                   "not ranked")
    assert all(r["recall"] is None for r in report["by_category"] if r["model"] == "partial")
    checks = {c["name"]: c for c in report["checks"]}
    assert not checks["comparable_scope"]["passed"] and "partial lacks 1 of 6" in checks["comparable_scope"]["summary"]
    assert "incomplete, 1 missing" in _report(tiny_home, capsys, "md")
    # the domain functions give the same rows
    domain = [f.leaderboard_row().model_dump(mode="json") for f in leaderboard(TINY, JUDGMENTS + tuple(
        j.model_copy(update={"model": "partial"}) for j in JUDGMENTS if j.item_id != "b2b"))]
    for got, want in zip(report["leaderboard"], domain, strict=True):
        assert {k: got[k] for k in want} == pytest.approx(want)


def test_compare_pairs_an_incomplete_model_on_the_matched_items_by_base_query(
        tiny_home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert lhl(tiny_home, "compare", "m", "partial", "--suite", "insufficiency", "--judge", "j", "--format", "json",
               "--resamples", "100") == 0
    paired = json.loads(capsys.readouterr().out)
    assert paired["units"] == 5 and paired["cluster"] == "base_id" and paired["clusters"] == 2
    f2 = next(m for m in paired["metrics"] if m["metric"] == "f2")
    assert f2["a"] == f2["b"] == pytest.approx((B1A_F2 + 1 + 0) / 3) and f2["diff"] == 0.0
    assert np.isclose(f2["ci_low"], 0.0) and np.isclose(f2["ci_high"], 0.0)
