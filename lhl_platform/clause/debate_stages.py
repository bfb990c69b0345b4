"""The debate's units of work for the clause suite: measure a backbone's profile and derive its calibration,
debate a stored subset from the backbone's extractions, and judge the debated outputs. They resolve the
registry, the corpus and the warehouse, which the debate package itself may not import."""

from __future__ import annotations

import asyncio

from lhl_platform.clause.audit import resolve
from lhl_platform.clause.debate.calibration import calibrated_config, calibration_from_rows
from lhl_platform.clause.debate.config import GENERIC, DebateConfig
from lhl_platform.clause.debate.engine import DebateSummary, debate_stream, run_debate_partition
from lhl_platform.clause.debate.events import DebateCalibration
from lhl_platform.clause.debate.offline import OfflineDebateModel
from lhl_platform.clause.debate.verdicts import (
    DebateJudgeSummary,
    baseline_verdicts,
    current_outcomes,
    judge_debate_partition,
)
from lhl_platform.clause.judging import recorded_extractions
from lhl_platform.corpus.store import load_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.progress import Progress
from lhl_platform.providers.base import ChatModel
from lhl_platform.registry import get_model, primary_judge
from lhl_platform.stats import nan_free
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest, resolved_scope

CONFIG_KINDS = ("calibrated", "generic")


def measure_calibration(home: Home, backbone: str, judge: str | None = None,
                        runs: list[int] | None = None) -> DebateCalibration:
    """The backbone's measured profile (per-category FAR, FRR, HalTP and RDI; overall RDI) in a scope holding
    it alone (active corpus, all its contracts, the given or all audited runs, the given or primary judge),
    and the calibrated configuration derived from it."""
    request = ScopeRequest(models=(backbone,), judge=judge, runs=tuple(runs) if runs else None)
    with read_warehouse(home, request) as con:
        scope = resolved_scope(con)
        cursor = con.execute("select category, far, frr, hal_tp, rdi from typed_profiles where model = ?",
                             [backbone])
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
        overall = con.execute("select rdi, contracts, n from leaderboard where model = ?", [backbone]).fetchone()
    if not rows or overall is None or scope.corpus_id is None:
        raise LookupError(f"{backbone} has no audited instances in the active corpus to calibrate from; "
                          f"audit it first (`lhl audit --models {backbone}`)")
    clean = [nan_free(r) for r in rows]
    return calibration_from_rows(backbone, clean, overall_rdi=overall[0], corpus_id=scope.corpus_id,
                                 judge=scope.judge, runs=scope.runs, contracts=int(overall[1]),
                                 instances=int(overall[2]))


def debate_config(home: Home, backbone: str, kind: str) -> DebateConfig:
    """The configuration a debate of this kind uses: the backbone's latest calibration, or the generic one."""
    if kind not in CONFIG_KINDS:
        raise ValueError(f"debate config must be one of {', '.join(CONFIG_KINDS)}, not {kind!r}")
    return GENERIC if kind == "generic" else calibrated_config(home.events, backbone)


def debate_model(spec: ModelSpec, run: int) -> ChatModel:
    """The model that plays every role: the backbone itself for an LLM provider; for an offline backbone the
    offline debate roles (one deterministic algorithm, whichever offline extractor made the baseline)."""
    return OfflineDebateModel() if spec.provider == "offline" else build_model(spec, run=run)


def run_debate(home: Home, backbone: str, run: int, subset: str, kind: str = "calibrated",
               progress: Progress | None = None) -> DebateSummary:
    """Debate every instance of a stored subset from the backbone's extractions of this run."""
    inputs = resolve(home, backbone, subset=subset)
    if inputs.spec.role != "extractor":
        raise ValueError(f"{backbone} is registered as a {inputs.spec.role}; a debate needs an extractor backbone")
    config = debate_config(home, backbone, kind)
    wanted = {c.contract_id for c in inputs.contracts}
    baselines = [x for x in recorded_extractions(home.events, backbone, run)
                 if x.corpus_id == inputs.corpus_id and x.contract_id in wanted]
    if not baselines:
        raise LookupError(f"{backbone} has no extractions of subset {subset!r} in run {run}; audit it first "
                          f"(`lhl audit --models {backbone} --runs {run} --subset {subset}`)")
    model = debate_model(inputs.spec, run)
    return asyncio.run(run_debate_partition(
        home.events, debate_stream(backbone, run, config), backbone, run, inputs.contracts, baselines, model, config,
        concurrency=inputs.spec.params.concurrency, progress=progress, corpus_id=inputs.corpus_id, subset=subset))


def judge_debate(home: Home, backbone: str, run: int, judge: str | None = None,
                 progress: Progress | None = None) -> DebateJudgeSummary:
    """The evaluation judge's verdicts on the true positives of the current debates of this backbone and run."""
    spec = get_model(home, judge or primary_judge(home))
    outcomes = current_outcomes(home.events, backbone, run)
    chat = build_model(spec)
    return asyncio.run(judge_debate_partition(
        home.events, backbone, run, outcomes, load_corpus(home).oracle, spec, chat,
        baseline=baseline_verdicts(home.events, backbone, run, spec.name), concurrency=spec.params.concurrency,
        progress=progress))
