"""The debate as a pipeline: calibration, outcomes and verdicts as Dagster partitions, the debate marts, the
debate system ranked beside its base, and a debate killed mid-partition resumed without repeating a call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lhl_platform.clause.debate.calibration import latest_calibration
from lhl_platform.clause.debate.config import GENERIC, CategoryMeasure, MeasuredProfile, calibrate
from lhl_platform.clause.debate.engine import debate_streams, read_outcomes, system_scope_key
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
from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import save_corpus
from lhl_platform.corpus.subsets import save_subset
from lhl_platform.domain.models import MismatchType, Subset, Usage, VerdictLabel
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, Category, category_of
from lhl_platform.events.payloads import AuditScope, EventType, ModelCall
from lhl_platform.home import Home
from lhl_platform.judging.events import VerdictEvent, VerdictRecorded
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main

# The offline debate through Dagster, from the command line -------------------------------------------------------


def _cli(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> str:
    code = main(["--home", str(home), *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _partitions(home: Path, models: list[str], subset: str) -> None:
    """The base audit's partition runs through the one run path, without the metrics job `lhl audit` runs after
    them: the debate's own run builds the SQL models and checks over both (its calibration reads a warehouse
    brought up to date from the events), so a second build of them here would only cost its ~420 steps."""
    from lhl_platform.suites import get_suite
    from orchestration.cli.audit import AuditOptions, run_audit

    assert run_audit(Home.resolve(home), get_suite("clause"), models, [1], AuditOptions(subset=subset),
                     say=lambda _: None, metrics=False) == 0


def test_the_offline_debate_lowers_the_inventors_false_positives_and_joins_the_ranks(tmp_path, capsys):
    home = tmp_path / "home"
    _cli(capsys, home, "ingest", "cuad", str(DEMO_DIR))
    _cli(capsys, home, "models", "add", "sim-inventor", "--provider", "offline", "--model-id", "simulated:inventor")
    _cli(capsys, home, "models", "add", "lexical", "--provider", "offline", "--model-id", "lexical")
    _cli(capsys, home, "subset", "create", "four", "--size", "4", "--seed", "3")
    _partitions(home, ["sim-inventor", "lexical"], "four")

    events = Home.resolve(home).events
    before = {s: len(events.read(s)) for s in events.streams()}
    dry = _cli(capsys, home, "debate", "--backbone", "sim-inventor", "--subset", "four", "--dry-run")
    assert "Dry run" in dry and "nothing is called" in dry
    assert {s: len(events.read(s)) for s in events.streams()} == before, "a dry run records nothing"

    out = _cli(capsys, home, "debate", "--backbone", "sim-inventor", "--runs", "1", "--subset", "four")
    assert "Debate effects" in out
    _cli(capsys, home, "debate", "--backbone", "sim-inventor", "--subset", "four", "--config", "generic")

    report = json.loads(_cli(capsys, home, "report", "--format", "json", "--resamples", "50"))
    effects = {r["config"]: r for r in report["debate_effects"]}
    assert set(effects) == {"calibrated", "generic"}
    for row in effects.values():
        assert (row["backbone"], row["run"], row["subset"], row["decisions"]) == ("sim-inventor", 1, "four", 4 * 41)
        assert row["fp_base"] >= 5 and row["fp_debate"] < row["fp_base"] / 2
        assert row["far_debate"] < row["far_base"] and row["hal_gen_debate"] < row["hal_gen_base"]
        assert 4 <= row["calls_per_decision"] <= 8 and row["tokens_per_decision"] > 0
        assert 1 <= row["mean_rounds"] <= 2 and 0 < row["share_round1"] <= 1 and 0 < row["flip_rate"] < 1
    categories = [r for r in report["debate_by_category"] if r["config"] == "calibrated"]
    assert sorted(r["category"] for r in categories) == sorted(c.value for c in Category)

    # The debate systems are ranked beside their base and the other model, on the same (matched) instances.
    systems = {"sim-inventor", "lexical", "sim-inventor+debate", "sim-inventor+debate-generic"}
    assert {r["model"] for r in report["leaderboard"]} == systems
    assert {r["model"] for r in report["composite"]} == systems and len(report["composite"]) == 5 * len(systems)
    assert report["scope"]["matched_contracts"] == 4
    board = {r["model"]: r for r in report["leaderboard"]}
    assert board["sim-inventor+debate"]["fp"] == effects["calibrated"]["fp_debate"]
    assert board["sim-inventor"]["fp"] == effects["calibrated"]["fp_base"]

    # Every outcome carries the configuration it was debated with: the latest calibration, and its hash.
    calibration = latest_calibration(events, "sim-inventor")
    assert calibration is not None and calibration.config.calibrated_from is not None
    outcomes = [o for s in debate_streams(events, "sim-inventor", 1) for o in read_outcomes(events, s)]
    assert len(outcomes) == 2 * 4 * 41 and all(o.config.hash == o.config_hash for o in outcomes)
    assert {o.config_hash for o in outcomes} == {calibration.config_hash, GENERIC.hash}
    assert calibration.config == calibrate(calibration.profile) and calibration.profile.model == "sim-inventor"

    # The debate system's calls and tokens, shaped for the usage mart: one row per role call, billed to the backbone.
    with read_warehouse(Home.resolve(home)) as con:
        usage = con.execute("""select model, count(*), sum(input_tokens + output_tokens) from int_usage
                               where stage = 'extraction' and model like '%+debate%' group by model order by model
                            """).fetchall()
    by_config = {kind: [o for o in outcomes if (o.config_name == "generic") == (kind == "generic")]
                 for kind in ("calibrated", "generic")}
    assert usage == [(f"sim-inventor+debate{suffix}", sum(o.calls for o in by_config[kind]),
                      sum(o.input_tokens + o.output_tokens for o in by_config[kind]))
                     for suffix, kind in (("", "calibrated"), ("-generic", "generic"))]
    _cli(capsys, home, "verify")


# The composite over base, debate and another model, by hand ------------------------------------------------------

GL, CAP, AUDIT = "Governing Law", "Cap On Liability", "Audit Rights"
TEXTS = {GL: "This Agreement is governed by the laws of Delaware.",
         CAP: "Liability shall not exceed the fees paid in the prior twelve months."}


def _write_synthetic_home(root: Path, layout: Any) -> Home:
    """Three contracts; base and other audited on all three, base+debate (debated from base) on c1 and c2.

    Truth: Governing Law in c1 and c2, Cap On Liability in c1, nothing else.
    base:   c1 GL TP supported, c2 GL TP contradicted (extra condition), c1 Cap FN, c2 Cap FP, c1 Audit FP.
    other:  c1 GL TP supported, c2 GL FN, c1 Cap FN, c3 Audit FP (outside the matched contracts).
    debate: c1 GL TP supported, c2 GL TP supported (text repaired), c1 Cap FN, c2 Cap FP (kept), c1 Audit TN.
    """
    home = Home.resolve(root).ensure()
    corpus_dir = layout([("c1.pdf", "c1.txt", {GL: [TEXTS[GL]], CAP: [TEXTS[CAP]]}),
                         ("c2.pdf", "c2.txt", {GL: [TEXTS[GL]]}),
                         ("c3.pdf", "c3.txt", {})])
    corpus_id = save_corpus(home, load_master_layout(corpus_dir), source=str(corpus_dir))
    contracts = ("c1", "c2", "c3")
    detected = {
        "base": {("c1", GL): "supported", ("c2", GL): "contradicted", ("c2", CAP): None, ("c1", AUDIT): None},
        "other": {("c1", GL): "supported", ("c3", AUDIT): None},
    }
    truth = {("c1", GL), ("c2", GL), ("c1", CAP)}
    log = home.events
    for model, found in detected.items():
        with log.writer(f"extract.model={model}.run=1") as w:
            w.append(EventType.AUDIT_SCOPE, f"{model}/1", f"scope:{model}",
                     AuditScope(model=model, run=1, corpus_id=corpus_id, contract_ids=list(contracts)))
            for c in contracts:
                for t in CLAUSE_TYPES:
                    present = (c, t) in found
                    w.append(ExtractionEvent.RECORDED, f"{c}/{t}", f"extraction:{model}:1:{c}:{t}",
                             ExtractionRecorded(model=model, run=1, contract_id=c, clause_type=t, present=present,
                                                quotes=("some quote",) if present else (), corpus_id=corpus_id,
                                                request_key="k"))
        with log.writer(verdict_stream(model, 1)) as w:
            for (c, t), verdict in found.items():
                if (c, t) in truth:
                    w.append(VerdictEvent.RECORDED, f"{c}/{t}", base_verdict_key("rubric", model, 1, c, t),
                             VerdictRecorded(
                                 model=model, run=1, contract_id=c, clause_type=t, verdict=VerdictLabel(verdict),
                                 mismatch_type=MismatchType.NONE if verdict == "supported"
                                 else MismatchType.EXTRA_CONDITION, reason="", judge="rubric",
                                 judge_model_id="rubric", prompt_version="p", request_key=f"{model}{c}{t}",
                                 usage=Usage(), latency_s=0.0, params={}))

    config = calibrate(MeasuredProfile(model="base", categories={c: CategoryMeasure(far=0.1, frr=0.1)
                                                                 for c in Category}))
    debated = ("c1", "c2")
    final = {("c1", GL), ("c2", GL), ("c2", CAP)}
    with log.writer(f"debate.model=base.run=1.config={config.hash}") as w:
        w.append(DebateEventType.SCOPE, "base/1", scope_key("base", 1, config.hash, debated, "s12"),
                 DebateScope(backbone="base", run=1, config_name=config.name, config_hash=config.hash,
                             prompt_version=DEBATE_PROMPT_VERSION, contract_ids=debated, clause_types=CLAUSE_TYPES,
                             config=config, system="base+debate", corpus_id=corpus_id, subset="s12"))
        w.append(EventType.AUDIT_SCOPE, "base+debate/1", system_scope_key("base+debate", corpus_id, debated),
                 AuditScope(model="base+debate", run=1, corpus_id=corpus_id, contract_ids=list(debated)))
        for c in debated:
            for t in CLAUSE_TYPES:
                ref = InstanceRef(backbone="base", run=1, config_hash=config.hash, contract_id=c, clause_type=t)
                was, now = (c, t) in detected["base"], (c, t) in final
                w.append(DebateEventType.OUTCOME, ref.subject, outcome_key(ref), DebateOutcome(
                    **ref.model_dump(), category=category_of(t), prompt_version=DEBATE_PROMPT_VERSION,
                    config_name=config.name, config=config, baseline_present=was,
                    baseline_quotes=("some quote",) if was else (), judge_present=now, final_present=now,
                    final_quotes=("some quote",) if now else (), flipped=was != now, text_changed=False,
                    rounds=2 if (c, t) == ("c1", AUDIT) else 1, consensus=True, consensus_position=None,
                    re_extracted=False, arbitrated=False, calls=4, reused_calls=0, input_tokens=100,
                    output_tokens=20, cached_tokens=0))
    with log.writer(debate_verdict_stream("base", 1)) as w:
        for c, t in sorted(final & truth):
            ref = InstanceRef(backbone="base", run=1, config_hash=config.hash, contract_id=c, clause_type=t)
            w.append(DebateEventType.VERDICT, ref.subject, verdict_key("rubric", ref), DebateVerdict(
                **ref.model_dump(), config_name=config.name, judge="rubric", judge_model_id="rubric",
                verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE, reason="", prompt_version="p",
                request_key=f"d{c}{t}"))
    return home


def test_the_composite_over_base_debate_and_another_model_equals_a_hand_computation(tmp_path, mini_layout):
    home = _write_synthetic_home(tmp_path / "home", mini_layout)
    with read_warehouse(home) as con:
        matched = con.execute("select count(distinct contract_id) from matched_cells").fetchone()[0]
        ranked = dict(con.execute("select model, ranked from scope_coverage").fetchall())
    # The debate system covers c1 and c2 only: a partial system, it never shrinks the matched cells (c1-c3)
    assert matched == 3 and ranked == {"base": True, "other": True, "base+debate": False}
    # In the scope it covers (its subset), it is ranked beside the others.
    save_subset(home, Subset(name="s12", contract_ids=("c1", "c2")))
    with read_warehouse(home, ScopeRequest(subset="s12")) as con:
        composite = {(s, m): (score, rank) for s, m, score, rank in con.execute(
            "select scheme, model, score, rank from composite_ranks").fetchall()}
        effects = con.execute("select * from debate_effects").df().to_dict("records")
        matched = con.execute("select count(distinct contract_id) from matched_cells").fetchone()[0]
    assert matched == 2

    # Matched instances: 2 contracts x 41 = 82 per system; 3 present (c1 GL, c2 GL, c1 Cap), 79 absent.
    #            TP FN FP supported   FAR    FRR   Acc     HalGen             JEq
    #   base      2  1  2     1        2/79   1/3   79/82   (1 + 2)/(2 + 2)    1/3
    #   other     1  2  0     1        0      2/3   80/82   0/1                1/3
    #   debate    2  1  1     2        1/79   1/3   80/82   (0 + 1)/(2 + 1)    2/3
    # Ranks (1 best; ties share the mean rank):
    #   FAR other 1, debate 2, base 3; FRR debate = base 1.5, other 3; Acc other = debate 1.5, base 3;
    #   HalGen other 1, debate 2, base 3; JEq debate 1, other = base 2.5.
    ranks = {"base": (3, 1.5, 3, 3, 2.5), "other": (1, 3, 1.5, 1, 2.5), "base+debate": (2, 1.5, 1.5, 2, 1)}
    weights = {"equal": (1, 1, 1, 1, 1), "fp_heavy": (2, 1, 1, 2, 1), "recall_heavy": (1, 2, 1, 1, 2),
               "halluc_only": (0, 0, 0, 1, 0), "detection_only": (1, 1, 1, 0, 0)}
    by_hand = {  # the weighted mean ranks written out
        "equal": {"base": 13 / 5, "other": 9 / 5, "base+debate": 8 / 5},
        "fp_heavy": {"base": 19 / 7, "other": 11 / 7, "base+debate": 12 / 7},
        "recall_heavy": {"base": 17 / 7, "other": 14.5 / 7, "base+debate": 10.5 / 7},
        "halluc_only": {"base": 3, "other": 1, "base+debate": 2},
        "detection_only": {"base": 7.5 / 3, "other": 5.5 / 3, "base+debate": 5 / 3},
    }
    for scheme, w in weights.items():
        for model, r in ranks.items():
            assert by_hand[scheme][model] == pytest.approx(sum(a * b for a, b in zip(w, r, strict=True)) / sum(w))
    expected_rank = {"equal": ("base+debate", "other", "base"), "fp_heavy": ("other", "base+debate", "base"),
                     "recall_heavy": ("base+debate", "other", "base"), "halluc_only": ("other", "base+debate", "base"),
                     "detection_only": ("base+debate", "other", "base")}
    assert set(composite) == {(s, m) for s in weights for m in ranks}
    for scheme, order in expected_rank.items():
        for position, model in enumerate(order, start=1):
            score, rank = composite[(scheme, model)]
            assert score == pytest.approx(by_hand[scheme][model]) and rank == position, (scheme, model)

    # debate_effects on the same 82 instances: the deleted fabrication and the repaired contradiction.
    assert len(effects) == 1
    row = effects[0]
    assert (row["backbone"], row["run"], row["subset"], row["config"], row["decisions"]) == (
        "base", 1, "s12", "calibrated", 82)
    assert (row["fp_base"], row["fp_debate"], row["contradicted_base"], row["contradicted_debate"]) == (2, 1, 1, 0)
    assert row["far_base"] == pytest.approx(2 / 79) and row["far_debate"] == pytest.approx(1 / 79)
    assert row["hal_gen_base"] == pytest.approx(3 / 4) and row["hal_gen_debate"] == pytest.approx(1 / 3)
    assert row["rdi_base"] == pytest.approx(1.0) and pd.isna(row["rdi_debate"])  # no contradiction left
    assert row["flip_rate"] == pytest.approx(1 / 82) and row["mean_rounds"] == pytest.approx(83 / 82)
    assert row["share_round1"] == pytest.approx(81 / 82) and row["calls_per_decision"] == 4
    assert row["tokens_per_decision"] == 120


# Killed mid-debate with an LLM backbone, then re-run -------------------------------------------------------------

CANNED: dict[str, dict[str, Any]] = {
    "ExtractionOutput": {"clauses": [{"clause_type": c, "present": False, "quotes": []} for c in CLAUSE_TYPES]},
    "SkepticOutput": {"findings": [], "structural_error": False, "claim": "absent", "accepts": True,
                      "rationale": "nothing in the contract fits"},
    "SupporterOutput": {"position": "absent", "concedes": False, "quotes": [], "argument": "no passage fits"},
    "VerifierOutput": {"present": False, "quote": "", "definition_fit": False, "confidence": 0.0,
                       "rationale": "no passage fits"},
    "DebateJudgeOutput": {"present": False, "quotes": [], "rationale": "the debate's consensus"},
}


class RoleServer:
    """A loopback OpenAI-compatible server answering each request with the canned answer for the schema it
    asks for (the role), after `delay` seconds; it records every request body."""

    def __init__(self, delay: float) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                with outer.lock:
                    outer.bodies.append(body)
                time.sleep(delay)
                schema = body["response_format"]["json_schema"]["name"]
                reply = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": json.dumps(CANNED[schema])}}],
                    "usage": {"prompt_tokens": 500, "completion_tokens": 40, "total_tokens": 540}}).encode()
                try:
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was killed

            def log_message(self, *args: Any) -> None:
                return None

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                return None  # a killed client leaves broken connections behind

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def debate_requests(self) -> list[str]:
        with self.lock:
            return [json.dumps(b["messages"], sort_keys=True) for b in self.bodies
                    if b["response_format"]["json_schema"]["name"] != "ExtractionOutput"]

    def __enter__(self) -> RoleServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def _recorded_calls(home: Home) -> set[str]:
    return {e.data_as(ModelCall).request_key for s in debate_streams(home.events, "local", 1)
            for e in home.events.read(s) if e.type == EventType.MODEL_CALL}


def test_a_debate_killed_mid_partition_resumes_without_repeating_a_completed_call(tmp_path, capsys):
    home = Home.resolve(tmp_path / "home")
    instances = 2 * len(CLAUSE_TYPES)
    calls_needed = 4 * instances  # the canned roles agree in round 1: Skeptic, Supporter, Verifier, Judge
    with RoleServer(delay=0.02) as server:
        _cli(capsys, home.root, "ingest", "cuad", str(DEMO_DIR))
        _cli(capsys, home.root, "subset", "create", "two", "--size", "2", "--seed", "1")
        _cli(capsys, home.root, "models", "add", "local", "--provider", "openai", "--model-id", "fake-llm",
             "--base-url", server.url, "--params", '{"concurrency": 2}')
        _partitions(home.root, ["local"], "two")

        command = [sys.executable, "-m", "orchestration.cli", "--home", str(home.root), "debate", "--backbone",
                   "local", "--runs", "1", "--subset", "two"]
        env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while len(server.debate_requests()) < calls_needed // 2 and time.monotonic() < deadline \
                and first.poll() is None:
            time.sleep(0.02)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        asked_before = server.debate_requests()
        recorded = _recorded_calls(home)
        assert 0 < len(recorded) < calls_needed and len(asked_before) < calls_needed, "the kill must land mid-debate"

        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr
        asked_after = server.debate_requests()[len(asked_before):]

    # The re-run asks exactly the calls whose record was not committed, each once: no recorded call again.
    assert len(asked_after) == calls_needed - len(recorded) and len(set(asked_after)) == len(asked_after)
    assert len(set(asked_before) | set(asked_after)) == calls_needed
    assert _recorded_calls(home) >= recorded and len(_recorded_calls(home)) == calls_needed
    outcomes = [o for s in debate_streams(home.events, "local", 1) for o in read_outcomes(home.events, s)]
    assert len(outcomes) == instances and {(o.contract_id, o.clause_type) for o in outcomes} == {
        (c, t) for c in {o.contract_id for o in outcomes} for t in CLAUSE_TYPES}
    assert "debate effects" in second.stdout.lower()
    assert main(["--home", str(home.root), "verify"]) == 0
