"""The verdict a report opens with (docs/method.md, section 17): the debate trade-off (first under equal weights,
worst on FRR), its caveats (unvalidated judge, partial system, small samples), the suites' verdicts, and the verdict
as the first section of the md, html and json reports."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from lhl_platform.clause.debate.config import CategoryMeasure, MeasuredProfile, calibrate
from lhl_platform.clause.debate.engine import system_scope_key
from lhl_platform.clause.debate.events import (
    DebateEventType,
    DebateOutcome,
    DebateScope,
    DebateVerdict,
    InstanceRef,
    outcome_key,
    scope_key,
    verdict_key,
)
from lhl_platform.clause.debate.prompts import DEBATE_PROMPT_VERSION
from lhl_platform.clause.debate.verdicts import debate_verdict_stream
from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionRecorded
from lhl_platform.clause.judging import verdict_key as base_verdict_key
from lhl_platform.clause.judging import verdict_stream
from lhl_platform.clause.report.build import report_from
from lhl_platform.clause.report.verdict import clause_verdict
from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.store import save_corpus
from lhl_platform.domain.models import MismatchType, Usage, VerdictLabel
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, Category, category_of
from lhl_platform.events.payloads import AuditScope, EventType
from lhl_platform.home import Home
from lhl_platform.judging.events import VerdictEvent, VerdictRecorded
from lhl_platform.report.verdict import SMALL_SAMPLE
from lhl_platform.warehouse.build import read_warehouse
from orchestration.cli import main

GL, CAP, AUDIT, NOTICE = "Governing Law", "Cap On Liability", "Audit Rights", "Notice Period To Terminate Renewal"
TEXTS = {GL: "This Agreement is governed by the laws of Delaware.",
         CAP: "Liability shall not exceed the fees paid in the prior twelve months."}
CONTRACTS = ("c1", "c2", "c3")
TRUTH = {("c1", GL), ("c2", GL), ("c3", GL), ("c1", CAP), ("c2", CAP)}
# What each system returns present, with the judge's verdict on its true positives (None: a false positive).
#   base:   4 TP (c2 GL contradicted), 1 FN (c2 Cap), 3 FP      FRR 1/5, FAR 3/118
#   other:  5 TP (4 contradicted), 0 FN, 4 FP                   FRR 0/5, FAR 4/118
#   debate: base debated: every fabrication gone, and 3 true clauses with them: 2 TP, 3 FN, 0 FP
#           FRR 3/5 (the worst), FAR, Acc and HalGen the best: first under the equal scheme
DETECTED: dict[str, dict[tuple[str, str], str | None]] = {
    "base": {("c1", GL): "supported", ("c2", GL): "contradicted", ("c3", GL): "supported", ("c1", CAP): "supported",
             ("c1", AUDIT): None, ("c2", AUDIT): None, ("c3", AUDIT): None},
    "other": {("c1", GL): "supported", ("c2", GL): "contradicted", ("c3", GL): "contradicted",
              ("c1", CAP): "contradicted", ("c2", CAP): "contradicted", ("c1", AUDIT): None, ("c2", AUDIT): None,
              ("c3", AUDIT): None, ("c1", NOTICE): None},
}
DEBATED = {("c1", GL), ("c3", GL)}  # what the debate keeps of base's findings


def _extractions(home: Home, corpus_id: str, model: str, contracts: tuple[str, ...],
                 found: dict[tuple[str, str], str | None]) -> None:
    with home.events.writer(f"extract.model={model}.run=1") as w:
        w.append(EventType.AUDIT_SCOPE, f"{model}/1", f"scope:{model}",
                 AuditScope(model=model, run=1, corpus_id=corpus_id, contract_ids=list(contracts)))
        for c in contracts:
            for t in CLAUSE_TYPES:
                present = (c, t) in found
                w.append(ExtractionEvent.RECORDED, f"{c}/{t}", f"extraction:{model}:1:{c}:{t}",
                         ExtractionRecorded(model=model, run=1, contract_id=c, clause_type=t, present=present,
                                            quotes=("some quote",) if present else (), corpus_id=corpus_id,
                                            request_key="k"))
    with home.events.writer(verdict_stream(model, 1)) as w:
        for (c, t), verdict in found.items():
            if verdict is not None:
                w.append(VerdictEvent.RECORDED, f"{c}/{t}", base_verdict_key("rubric", model, 1, c, t),
                         VerdictRecorded(
                             model=model, run=1, contract_id=c, clause_type=t, verdict=VerdictLabel(verdict),
                             mismatch_type=MismatchType.NONE if verdict == "supported"
                             else MismatchType.EXTRA_CONDITION, reason="", judge="rubric", judge_model_id="rubric",
                             prompt_version="p", request_key=f"{model}{c}{t}", usage=Usage(), latency_s=0.0,
                             params={}))


def _debate(home: Home, corpus_id: str) -> None:
    config = calibrate(MeasuredProfile(model="base", categories={c: CategoryMeasure(far=0.1, frr=0.1)
                                                                 for c in Category}))
    with home.events.writer(f"debate.model=base.run=1.config={config.hash}") as w:
        w.append(DebateEventType.SCOPE, "base/1", scope_key("base", 1, config.hash, CONTRACTS, None),
                 DebateScope(backbone="base", run=1, config_name=config.name, config_hash=config.hash,
                             prompt_version=DEBATE_PROMPT_VERSION, contract_ids=CONTRACTS, clause_types=CLAUSE_TYPES,
                             config=config, system="base+debate", corpus_id=corpus_id, subset=None))
        w.append(EventType.AUDIT_SCOPE, "base+debate/1", system_scope_key("base+debate", corpus_id, CONTRACTS),
                 AuditScope(model="base+debate", run=1, corpus_id=corpus_id, contract_ids=list(CONTRACTS)))
        for c in CONTRACTS:
            for t in CLAUSE_TYPES:
                ref = InstanceRef(backbone="base", run=1, config_hash=config.hash, contract_id=c, clause_type=t)
                was, now = (c, t) in DETECTED["base"], (c, t) in DEBATED
                w.append(DebateEventType.OUTCOME, ref.subject, outcome_key(ref), DebateOutcome(
                    **ref.model_dump(), category=category_of(t), prompt_version=DEBATE_PROMPT_VERSION,
                    config_name=config.name, config=config, baseline_present=was,
                    baseline_quotes=("some quote",) if was else (), judge_present=now, final_present=now,
                    final_quotes=("some quote",) if now else (), flipped=was != now, text_changed=False, rounds=1,
                    consensus=True, consensus_position=None, re_extracted=False, arbitrated=False, calls=4,
                    reused_calls=0, input_tokens=100, output_tokens=20, cached_tokens=0))
    with home.events.writer(debate_verdict_stream("base", 1)) as w:
        for c, t in sorted(DEBATED):
            ref = InstanceRef(backbone="base", run=1, config_hash=config.hash, contract_id=c, clause_type=t)
            w.append(DebateEventType.VERDICT, ref.subject, verdict_key("rubric", ref), DebateVerdict(
                **ref.model_dump(), config_name=config.name, judge="rubric", judge_model_id="rubric",
                verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE, reason="", prompt_version="p",
                request_key=f"d{c}{t}"))


@pytest.fixture(scope="module")
def debate_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    """base, other and base+debate on three contracts, and a partial system audited on c1 only; the judge
    (rubric) never validated."""
    root = tmp_path_factory.mktemp("verdict")
    layout = root / "corpus"
    (layout / "full_contract_txt").mkdir(parents=True)
    spans = {"c1": {GL: [TEXTS[GL]], CAP: [TEXTS[CAP]]}, "c2": {GL: [TEXTS[GL]], CAP: [TEXTS[CAP]]},
             "c3": {GL: [TEXTS[GL]]}}
    with (layout / "master_clauses.csv").open("w", encoding="utf-8", newline="") as fh:  # CUAD's layout
        writer = csv.writer(fh)
        writer.writerow(["Filename"] + [x for t in CLAUSE_TYPES for x in (t, f"{t}-Answer")])
        for c in CONTRACTS:
            writer.writerow([f"{c}.pdf"] + [x for t in CLAUSE_TYPES for x in (repr(spans[c].get(t, [])),
                                                                                "Yes" if t in spans[c] else "No")])
            (layout / "full_contract_txt" / f"{c}.txt").write_text(
                "AGREEMENT\n" + " ".join(" ".join(v) for v in spans[c].values()), encoding="utf-8")
    home = Home.resolve(root / "home").ensure()
    corpus_id = save_corpus(home, load_master_layout(layout), source=str(layout))
    for model, found in DETECTED.items():
        _extractions(home, corpus_id, model, CONTRACTS, found)
    _extractions(home, corpus_id, "partial", ("c1",), {("c1", GL): "supported"})
    _debate(home, corpus_id)
    return home


@pytest.fixture(scope="module")
def debate_report(debate_home: Home) -> Any:
    with read_warehouse(debate_home) as con:
        return report_from(con, resamples=200, seed=0)


def test_first_under_equal_weights_but_worst_on_frr_is_the_verdicts_trade_off(debate_report) -> None:
    board = {r.model: r for r in debate_report.leaderboard}
    assert (board["base"].frr, board["base+debate"].frr, board["other"].frr) == pytest.approx((1 / 5, 3 / 5, 0))
    assert (board["base"].fn, board["base+debate"].fn) == (1, 3)
    verdict = clause_verdict(debate_report)
    assert verdict.best == ["base+debate"] and verdict.scheme == "equal"
    assert [r.model for r in verdict.ranking] == ["base+debate", "base", "other"]  # partial is not ranked
    assert verdict.stability is not None and 0 <= verdict.stability <= 1 and verdict.resamples == 200
    worst = [t for t in verdict.trade_offs if t.kind == "worst_on_metric"]
    assert [t.metric for t in worst] == ["frr"]
    frr = worst[0]
    assert (frr.value, frr.best_model, frr.best_value) == pytest.approx((3 / 5, "other", 0.0))
    assert (frr.baseline_model, frr.baseline_value, frr.baseline_count, frr.count) == ("base", pytest.approx(0.2), 1,
                                                                                        3)
    assert "FRR from 20.0% to 60.0% (FN from 1 to 3)" in frr.statement
    # recall_heavy doubles FRR and JEq: base is first there, which changes the answer
    schemes = {t.metric: t.best_model for t in verdict.trade_offs if t.kind == "scheme"}
    assert schemes == {"recall_heavy": "base"}
    # the scheme the team chose decides: under recall_heavy base is first, tied worst on Acc (4 errors, as other)
    other = clause_verdict(debate_report, "recall_heavy")
    assert other.best == ["base"] and [t.metric for t in other.trade_offs if t.kind == "worst_on_metric"] == ["acc"]
    with pytest.raises(ValueError, match="unknown composite scheme"):
        clause_verdict(debate_report, "nope")


def test_an_unvalidated_judge_a_partial_system_and_small_samples_are_caveats(debate_report) -> None:
    caveats = {c.kind: c for c in clause_verdict(debate_report).caveats}
    assert caveats["judge_unvalidated"].subjects == ["rubric"]
    assert "judge_validated null" in caveats["judge_unvalidated"].statement
    assert caveats["partial"].subjects == ["partial"] and "1 of 3 contracts" in caveats["partial"].statement
    small = caveats["small_sample"]
    # FRR rests on the 5 true clauses of the matched contracts: every system's FRR interval is flagged
    assert {"base FRR (n=5)", "base+debate FRR (n=5)", "other FRR (n=5)"} <= set(small.subjects)
    assert all(int(s.rsplit("n=", 1)[1].rstrip(")")) < SMALL_SAMPLE for s in small.subjects)
    assert "FAR" not in " ".join(s for s in small.subjects if "n=118" in s)  # 118 negatives: not small


def test_when_nothing_is_ranked_the_verdict_names_no_system(debate_report) -> None:
    # every system partial: no ranked coverage row, so no composite rank counts
    unranked = debate_report.model_copy(update={"coverage": [c.model_copy(update={"ranked": False})
                                                             for c in debate_report.coverage]})
    verdict = clause_verdict(unranked)
    assert verdict.best == [] and verdict.ranking == [] and verdict.figures == [] and verdict.stability is None
    assert verdict.statement.startswith("Nothing can be ranked")
    assert verdict.caveats[0].kind == "nothing_ranked"


def _out(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> str:
    capsys.readouterr()
    assert main(["--home", str(home), "report", *args]) == 0
    return capsys.readouterr().out


def test_the_verdict_is_the_first_section_of_md_html_and_json(debate_home: Home, capsys, tmp_path: Path) -> None:
    args = ("--resamples", "200")
    data = json.loads(_out(capsys, debate_home.root, "--format", "json", *args))
    assert list(data)[0] == "verdict" and data["verdict"]["best"] == ["base+debate"]
    md = _out(capsys, debate_home.root, "--format", "md", *args)
    assert md.startswith("## Verdict\n") and md.index("## Verdict") < md.index("## Scope")
    assert "FRR from 20.0% to 60.0% (FN from 1 to 3)" in md.split("## Scope")[0]
    table = _out(capsys, debate_home.root, *args)
    assert table.startswith("Verdict\n=======\n")
    html = _out(capsys, debate_home.root, "--format", "html", *args)
    assert html.index('<section id="verdict">') == html.index("<section ")  # the first section, first in the nav
    assert html.index('<a href="#verdict">Verdict</a>') < html.index('<a href="#scope">')
    first = html.split('<section id="verdict">')[1].split("</section>")[0]
    assert 'data-best="base+debate"' in first and 'data-metric="frr"' in first
    assert 'data-caveat="judge_unvalidated"' in first and 'data-caveat="partial"' in first


def _suite_json(capsys: pytest.CaptureFixture[str], home: Path, suite: str) -> dict[str, Any]:
    data = json.loads(_out(capsys, home, "--suite", suite, "--format", "json"))
    assert list(data)[0] == "verdict"
    return data


def test_contractscrub_ranks_by_overall_recall_and_names_its_trade_off_and_gold(demo_home: Path, capsys) -> None:
    data = _suite_json(capsys, demo_home, "contractscrub")
    verdict, board = data["verdict"], {r["model"]: r for r in data["leaderboard"]}
    first = next(m for m, r in board.items() if r["rank"] == 1)
    assert verdict["best"] == [first] and verdict["metric"] == "recall"
    assert [r["model"] for r in verdict["ranking"]] == [m for m, _ in sorted(
        ((m, r) for m, r in board.items() if r["rank"] is not None), key=lambda x: x[1]["rank"])]
    worst_precision = min(r["precision"] for r in board.values() if r["rank"] is not None)
    trade = [t for t in verdict["trade_offs"] if t["metric"] == "precision"]
    assert bool(trade) == (board[first]["precision"] == worst_precision)
    kinds = {c["kind"] for c in verdict["caveats"]}
    assert "self_built_gold" in kinds  # the demo's set is built by injection, not annotated by lawyers
    assert ("small_sample" in kinds) == (board[first]["contracts"] < SMALL_SAMPLE)
    assert "judge_unvalidated" not in kinds and "judge_failed" not in kinds  # no judge scores this suite
    md = _out(capsys, demo_home, "--suite", "contractscrub", "--format", "md")
    assert md.startswith("## Verdict\n") and first in md.split("## Scope")[0]
    html = _out(capsys, demo_home, "--suite", "contractscrub", "--format", "html")
    assert html.index('<section id="verdict">') == html.index("<section ")


def test_insufficiency_ranks_by_f2_among_the_complete_models(demo_home: Path, capsys) -> None:
    data = _suite_json(capsys, demo_home, "insufficiency")
    verdict, board = data["verdict"], {r["model"]: r for r in data["leaderboard"]}
    first = next(m for m, r in board.items() if r["rank"] == 1)
    assert verdict["best"] == [first] and verdict["metric"] == "f2"
    figures = {f["metric"]: f for f in verdict["figures"]}
    assert figures["f2"]["value"] == board[first]["f2"] and figures["f2"]["ci_low"] == board[first]["f2_ci_low"]
    runner = next(m for m, r in board.items() if r["rank"] == 2)
    assert verdict["separated"] == (board[first]["f2_ci_low"] > board[runner]["f2_ci_high"])
    kinds = {c["kind"] for c in verdict["caveats"]}
    assert "self_built_gold" in kinds and ("judge_unvalidated" in kinds) == (board[first]["judge_validated"] is None)
    bases = data["item_set"][0]["base_items"]
    assert ("small_sample" in kinds) == (bases < SMALL_SAMPLE or any(
        r["gold"] < SMALL_SAMPLE for r in data["by_category"] if r["model"] == first and r["recall"] is not None))


def test_a_suites_verdict_ranks_by_the_rule_it_declares_and_by_none_without(demo_home: Path) -> None:
    from lhl_platform.report.suite_report import build_suite_report
    from lhl_platform.report.verdict import suite_verdict
    from lhl_platform.scrub.verdict import VERDICT_RULE
    from lhl_platform.suites import get_suite

    built = build_suite_report(Home.resolve(demo_home), get_suite("contractscrub"), resamples=200)
    ruled = suite_verdict(built, VERDICT_RULE)
    assert ruled.metric == "recall" and ruled.best
    bare = suite_verdict(built, None)  # the platform alone ranks nothing: the rule is the suite's
    assert bare.best == [] and [c.kind for c in bare.caveats] == ["nothing_ranked"]
    assert "suite contractscrub reports no ranked leaderboard" in bare.statement


def test_a_system_the_judge_labelled_in_part_is_a_caveat(tmp_path: Path) -> None:
    from lhl_platform.clause.importer import import_outcomes
    from lhl_platform.clause.report.build import build_report
    from tests.helpers import outcome, write_outcomes

    rows = []
    for model in ("a", "b"):  # a's TPs of run 2 carry no verdict: its judge labelled run 1 only
        for run in (1, 2):
            verdict = ("supported", "none") if model == "b" or run == 1 else ()
            rows += [outcome(model, run, "c1", t, "TP" if i == 0 else "TN", *verdict if i == 0 else ())
                     for i, t in enumerate(CLAUSE_TYPES)]
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    caveats = {c.kind: c for c in clause_verdict(build_report(home, resamples=50)).caveats}
    assert caveats["partly_judged"].subjects == ["a"]
    assert "decided 1 of the 2 true positives of a (1 not labelled)" in caveats["partly_judged"].statement


def test_contractscrub_weighs_its_term_only_figures_too(demo_home: Path, capsys) -> None:
    """The runner-up's higher term-only precision is a trade-off of the winner's, as its precision is."""
    data = _suite_json(capsys, demo_home, "contractscrub")
    verdict, board = data["verdict"], {r["model"]: r for r in data["leaderboard"]}
    first = verdict["best"][0]
    ranked = [r for r in board.values() if r["rank"] is not None]
    for metric in ("terms_only_recall", "terms_only_precision", "terms_only_f1"):
        worst = min(r[metric] for r in ranked)
        assert any(t["metric"] == metric for t in verdict["trade_offs"]) == (board[first][metric] == worst), metric
    assert {"term-only recall", "term-only precision", "term-only F1"} <= set(verdict["checked"])


def _cost(rows: list[tuple[str, int | None, int | None, float | None]]) -> Any:
    from lhl_platform.report.cost import CostSection
    from lhl_platform.report.marts import CostPerCorrectRow

    return CostSection(unit="true positive", by_stage=[], batch_savings=[], over_time=[], unknown=[], per_correct=[
        CostPerCorrectRow(model=m, calls=calls, unknown_cost_calls=0, correct=correct, unit="true positive",
                          cost_usd=usd, cost_per_correct_usd=None if usd is None or not correct else usd / correct)
        for m, calls, correct, usd in rows])


def test_the_costliest_first_system_per_correct_answer_is_a_trade_off() -> None:
    from lhl_platform.report.verdict import costliest

    # free offline systems: weighed in calls per true positive (4,516 calls for 278 against 297 for 273)
    found, weighed = costliest("a", _cost([("a", 4516, 278, 0.0), ("b", 297, 273, 0.0)]), ["a", "b"])
    assert weighed == "calls per true positive" and [t.kind for t in found] == ["cost"]
    assert found[0].best_model == "b" and round(found[0].value or 0, 2) == 16.24
    assert "4,516 calls for 278 against 297 for 273" in found[0].statement
    # priced systems: in USD; the cheaper first system has no cost trade-off
    found, weighed = costliest("a", _cost([("a", 10, 5, 1.0), ("b", 10, 5, 4.0)]), ["a", "b"])
    assert weighed == "cost per true positive" and found == []
    # a system with no correct answer is left out, never counted as 0; one left is nothing to compare
    assert costliest("a", _cost([("a", 10, 5, 0.0), ("b", 10, 0, 0.0)]), ["a", "b"]) == ([], None)
    assert costliest("a", None, ["a", "b"]) == ([], None)


def test_a_stand_in_is_tagged_once_where_the_verdict_first_names_it() -> None:
    from lhl_platform.report.system_nature import SystemNature, by_model, named_in, nature_of

    natures = by_model([SystemNature(model="sim-x", nature="simulated"), SystemNature(model="gpt", nature="model"),
                        SystemNature(model="sim-x+debate", nature="simulated")])
    seen: set[str] = set()
    assert named_in("sim-x+debate is first; next: sim-x (#2), then gpt.", natures, seen) == (
        "sim-x+debate (simulated from the gold) is first; next: sim-x (simulated from the gold) (#2), then gpt.")
    assert named_in("sim-x is partial.", natures, seen) == "sim-x is partial."  # already said
    # a registered API model is real; an unregistered name is unknown, never called a stand-in
    assert nature_of("m", {"m": ("openai", "gpt-4.1", "extractor")}).nature == "model"
    assert nature_of("imported", {}).nature == "unregistered" and not nature_of("imported", {}).stand_in
