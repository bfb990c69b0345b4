"""The clause suite's stages: what each of its assets does, as plain functions of a `StageContext`.

- items: `contracts`, `oracle`, `clause_taxonomy` (the active corpus and its gold);
- per (model, run): `extractions` (solve: one structured call per contract), `judge_verdicts` (score: the
  evaluation judge on every TP), `model_profiles` (one partition's outcomes and typed profile, in SQL over its own
  events); each reports the partition's own checks, computed from its own streams;
- the debate (mitigation): `debate_calibration` per backbone, `debate_outcomes` and `debate_verdicts` per
  (backbone, run);
- derived: `model_drift` (the newest round's changes and the model version served) and `judge_agreement`.

Each resolves what it needs once (the model's spec, the active corpus, the contracts in scope) from the home,
the partition and its run config; the run config leaves open what the model's registered audit settings decide.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.calls.batch_switch import batch_requested
from lhl_platform.calls.budget import round_limit
from lhl_platform.clause.audit import resolve, run_extraction, run_judging
from lhl_platform.clause.checks import (
    completeness,
    every_tp_judged,
    labels_in_domain,
    no_duplicate_instances,
)
from lhl_platform.clause.debate.calibration import latest_calibration, record_calibration
from lhl_platform.clause.debate.events import DebateCalibration
from lhl_platform.clause.debate_stages import judge_debate, measure_calibration, run_debate
from lhl_platform.clause.extraction.definitions import DEFINITIONS
from lhl_platform.clause.extraction.engine import extraction_stream
from lhl_platform.clause.extraction.events import ExtractionEvent
from lhl_platform.clause.judging import verdict_stream
from lhl_platform.clause.monitoring import served_model_changes, unjudged_runs
from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import CORPUS_STREAM, active_corpus_id, load_corpus, save_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES
from lhl_platform.events.log import stream_head
from lhl_platform.home import Home
from lhl_platform.judges import judge_agreement as agreement_between
from lhl_platform.progress import ProgressBar
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.registry import get_model, judges, primary_judge
from lhl_platform.stats import nan_to_null
from lhl_platform.suites.contract import FilePath, Markdown, StageContext, StageResult
from lhl_platform.warehouse.build import partition_connection, read_warehouse


class _Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CorpusConfig(_Config):
    path: str | None = Field(default=None, description="CUAD-layout folder to load; default: keep the home's "
                                                       "active corpus, or the bundled demo corpus if none")


class ExtractionConfig(_Config):
    contracts: int | None = Field(default=None, description="audit only the first N contracts (by id); "
                                                            "default: the model's registered audit settings")
    subset: str | None = Field(default=None, description="audit a stored subset of contracts; default: the "
                                                         "model's registered audit settings (else every contract)")
    batch: bool | None = Field(default=None, description="send an LLM's requests through its provider's batch API "
                                                         "(batch prices, answered within hours; the run polls and "
                                                         "shows what it waits for); default: LHL_AUDIT_BATCH")
    rejudge: bool = Field(default=False, description="re-judge only: a partition with recorded extractions extracts "
                                                     "nothing new (no call to the model, not even to retry a failure); "
                                                     "one with none is extracted in full")


class JudgeConfig(_Config):
    judge: str | None = Field(default=None, description="registered judge model; default: the model's registered "
                                                        "audit judge, else the primary judge (built-in: rubric)")


class VerdictConfig(JudgeConfig):
    batch: bool | None = Field(default=None, description="send an LLM judge's requests through its provider's batch "
                                                         "API (batch prices); default: LHL_AUDIT_BATCH")


class CalibrationConfig(_Config):
    judge: str | None = Field(default=None, description="judge whose verdicts the profile is measured with "
                                                        "(default: the primary judge)")
    runs: list[int] | None = Field(default=None, description="audited runs to measure (default: all)")


class DebateRunConfig(_Config):
    subset: str = Field(description="the stored subset of contracts to debate (lhl subset create)")
    config: str = Field(default="calibrated", description="calibrated (the backbone's latest calibration) or "
                                                          "generic (the untargeted ablation)")


class DebateJudgeConfig(_Config):
    judge: str | None = Field(default=None, description="the evaluation judge (default: the primary judge, the "
                                                        "one that scored the baseline in reports)")


class PartitionSettings(BaseModel):
    """What one (model, run) partition is audited with."""

    judge: str
    contracts: int | None
    subset: str | None
    rejudge: bool = False


def partition_settings(home: Home, model: str, *, judge: str | None = None, contracts: int | None = None,
                       subset: str | None = None, rejudge: bool = False) -> PartitionSettings:
    """Explicit values win; the rest come from the model's registered audit settings (`params.audit`), then
    the defaults (the primary judge, every contract). The CLI, the sensors, job backfills and the stages' own
    defaults all resolve a partition's settings here, so every launcher audits a model the same way."""
    settings = get_model(home, model).params.audit
    if contracts is None and subset is None:
        contracts, subset = settings.contracts, settings.subset
    return PartitionSettings(judge=judge or settings.judge or primary_judge(home), contracts=contracts, subset=subset,
                             rejudge=rejudge)


def has_extractions(home: Home, model: str, run: int) -> bool:
    """Whether the (model, run) partition has recorded any extraction (so re-judging it needs no model call)."""
    stream = extraction_stream(model, run)
    return stream in set(home.events.streams()) and any(
        e.type == ExtractionEvent.RECORDED for e in home.events.read(stream))


def audit_run_config(settings: PartitionSettings) -> dict[str, dict[str, Any]]:
    extraction: dict[str, Any] = {"contracts": settings.contracts, "subset": settings.subset}
    if settings.rejudge:
        extraction["rejudge"] = True
    return {"extractions": extraction,
            "judge_verdicts": {"judge": settings.judge}, "model_profiles": {"judge": settings.judge}}


def _pct(value: object) -> str:
    value = nan_to_null(value)
    return "-" if value is None else f"{100 * float(value):.1f}"  # type: ignore[arg-type]


def _head(home: Home, stream: str) -> dict[str, Any]:
    """The partition stream's head (event count, last chain hash) as of this materialization: an anchor kept
    outside the event log, so a later truncation or rollback of the stream contradicts Dagster's record."""
    count, chain = stream_head(home.events, stream)
    return {"stream": stream, "stream_events": count, "stream_head": chain}


def _bar(spec: ModelSpec, label: str) -> ProgressBar:
    """Progress (calls, tokens, spend, ETA) on stderr for every partition that lasts more than a few seconds,
    offline ones included (a lexical pass over CUAD takes a while)."""
    return ProgressBar(label, spec.price)


def _partition_checks(home: Home, streams: list[str], model: str, run: int, checks: list[Any],
                      judge: str | None = None) -> list[CheckOutcome]:
    """Checks computed from this partition's own events (an in-memory warehouse over its streams and the
    corpus stream, which names the corpus the partition was audited on)."""
    con = partition_connection(home, [CORPUS_STREAM, *streams], judge=judge)
    try:
        return [check(con, model, run) for check in checks]
    finally:
        con.close()


def _round_limit(home: Home, model: str, run: int) -> contextlib.AbstractContextManager[object]:
    """The model's registered spending limit for this audit round (`params.audit.max_cost_usd`), its extraction
    and judge calls together, unless the command that launched the run set one (`--max-cost`)."""
    return round_limit(get_model(home, model).params.audit.max_cost_usd, scope=f"{model} run {run}", log=home.events)


def _partition(ctx: StageContext) -> tuple[str, int]:
    assert ctx.model is not None and ctx.run is not None, "a (model, run) stage runs on a partition"
    return ctx.model, ctx.run


# Items ------------------------------------------------------------------------------------------------

def contracts(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, CorpusConfig)
    home = ctx.home
    try:
        current = active_corpus_id(home) if config.path is None else None
    except RuntimeError:
        current = None
    if current is None:
        source = config.path or str(DEMO_DIR)
        current = save_corpus(home, load_master_layout(Path(source)), source=source)
    corpus = load_corpus(home, current)
    return StageResult(metadata={"corpus_id": current, "contracts": len(corpus.contracts),
                                 "characters": sum(len(c.text) for c in corpus.contracts)})


def oracle(ctx: StageContext) -> StageResult:
    corpus = load_corpus(ctx.home)
    present = Counter(str(r.category) for r in corpus.oracle if r.present)
    return StageResult(metadata={"instances": len(corpus.oracle), "present": corpus.n_present,
                                 **{f"present_{k}": v for k, v in sorted(present.items())}})


def clause_taxonomy(ctx: StageContext) -> StageResult:
    rows = [f"| {c} | {CATEGORY_OF[c]} | {DEFINITIONS[c]} |" for c in CLAUSE_TYPES]
    table = "| clause type | category | definition |\n|---|---|---|\n" + "\n".join(rows)
    counts = Counter(str(v) for v in CATEGORY_OF.values())
    return StageResult(metadata={"clause_types": len(CLAUSE_TYPES), **dict(counts), "taxonomy": Markdown(table)})


# The audit of one (model, run) partition ----------------------------------------------------------------

def extractions(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, ExtractionConfig)
    home = ctx.home
    model, run = _partition(ctx)
    stream = extraction_stream(model, run)
    if config.rejudge and has_extractions(home, model, run):
        ctx.log(f"re-judging {model}, run {run}: its recorded extractions are judged, nothing is extracted")
        return StageResult(metadata={"rejudge": True, "extracted_now": 0, **_head(home, stream)},
                           checks=_partition_checks(home, [stream], model, run,
                                                    [completeness, no_duplicate_instances]))
    settings = partition_settings(home, model, contracts=config.contracts, subset=config.subset)
    inputs = resolve(home, model, settings.contracts, settings.subset)
    ctx.log(f"extracting {len(inputs.contracts)} contracts with {model}, run {run}")
    bar = _bar(inputs.spec, f"{model} run {run} extraction:")
    batch = batch_requested() if config.batch is None else config.batch

    def waiting(text: str) -> None:  # a batch partition's waiting, in the run's log (UI) and on stderr
        ctx.log(text)
        bar.status(text)

    with _round_limit(home, model, run):
        summary = run_extraction(home, inputs, run, progress=bar, batch=batch, status=waiting)
    return StageResult(metadata={**summary.metadata(), **_head(home, stream)}, failures=summary.failures[:20],
                       checks=_partition_checks(home, [stream], model, run, [completeness, no_duplicate_instances]))


def judge_verdicts(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, VerdictConfig)
    home = ctx.home
    model, run = _partition(ctx)
    judge = get_model(home, partition_settings(home, model, judge=config.judge).judge)
    corpus = load_corpus(home)
    # The primary judge labels every TP too (a no-op for TPs it already labelled), so auditing with a second
    # judge never leaves the default report with unjudged TPs, even when new contracts were extracted.
    primary = get_model(home, primary_judge(home))
    extra = {} if primary.name == judge.name else {"primary_judge": primary.name}
    if primary.name != judge.name:
        ctx.log(f"judging {model}, run {run} with the primary judge {primary.name}")
        with _round_limit(home, model, run):
            run_judging(home, model, run, primary, corpus,
                        progress=_bar(primary, f"{model} run {run} ({primary.name}):"))
    ctx.log(f"judging {model}, run {run} with {judge.name}")
    bar = _bar(judge, f"{model} run {run} judging ({judge.name}):")

    def waiting(text: str) -> None:
        ctx.log(text)
        bar.status(text)

    with _round_limit(home, model, run):
        summary = run_judging(home, model, run, judge, corpus, progress=bar,
                              batch=batch_requested() if config.batch is None else config.batch, status=waiting)
    streams = [extraction_stream(model, run), verdict_stream(model, run)]
    return StageResult(
        metadata={**summary.metadata(), "judge": judge.name, **extra, **_head(home, verdict_stream(model, run))},
        failures=summary.failures[:20],
        checks=_partition_checks(home, streams, model, run, [every_tp_judged, labels_in_domain], judge=judge.name))


PROFILE_TABLES = ("instance_outcomes", "typed_profiles", "rdi_units", "missing_rows", "per_run_metrics")
_FIGURES = ("n", "tp", "fp", "fn", "tn", "supported", "contradicted", "n_missing_condition",
            "n_extra_condition", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi", "missing_rows")


def profile_dir(home: Home, model: str, run: int) -> Path:
    return home.root / "profiles" / f"model={model}" / f"run={run}"


def _figure(value: object) -> float | int | str:
    if nan_to_null(value) is None:
        return "-"
    return value if isinstance(value, int | float) else str(value)


def model_profiles(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, JudgeConfig)
    home = ctx.home
    model, run = _partition(ctx)
    judge = partition_settings(home, model, judge=config.judge).judge
    streams = [CORPUS_STREAM, extraction_stream(model, run), verdict_stream(model, run)]
    folder = profile_dir(home, model, run)
    folder.mkdir(parents=True, exist_ok=True)
    con = partition_connection(home, streams, judge=judge)
    try:
        counts = {}
        for table in PROFILE_TABLES:
            target = folder / f"{table}.parquet"
            con.execute(f"copy (select * from {table}) to '{target}' (format parquet)")
            counts[table] = int(con.execute(f"select count(*) from {table}").fetchone()[0])
        cursor = con.execute("select * from per_run_metrics where model = ? and run = ?", [model, run])
        names = [d[0] for d in cursor.description]
        row = cursor.fetchone()
        categories = con.execute("select category, n, tp, hal_tp, rdi, far, frr from typed_profiles "
                                 "where model = ? order by category", [model]).fetchall()
    finally:
        con.close()
    figures = {k: v for k, v in zip(names, row, strict=True) if k in _FIGURES} if row else {}
    table = "| category | n | TP | HalTP % | RDI | FAR % | FRR % |\n|---|---|---|---|---|---|---|\n" + "\n".join(
        f"| {c} | {n} | {tp} | {_pct(h)} | {'-' if r is None else f'{r:+.3f}'} | {_pct(fa)} | {_pct(fr)} |"
        for c, n, tp, h, r, fa, fr in categories)
    ctx.log(f"profile of {model}, run {run} (judge {judge}): {counts['instance_outcomes']} instances, "
            f"{counts['missing_rows']} missing rows")
    return StageResult(metadata={
        "judge": judge, **{k: _figure(v) for k, v in figures.items()},
        **{f"rows_{t}": n for t, n in counts.items()},
        "typed_profile": Markdown(table), "path": FilePath(str(folder))})


# The debate -------------------------------------------------------------------------------------------------

def _profile_table(calibration: DebateCalibration) -> str:
    lines = ["| category | FAR | FRR | HalTP | RDI | presence | omission | content | direction | addition gate "
             "min conf. | deletion block conf. |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for category, cal in calibration.config.categories.items():
        m = calibration.profile.categories.get(category)
        lines.append(
            f"| {category.value} | {_pct(m.far if m else None)} | {_pct(m.frr if m else None)} | "
            f"{_pct(m.hal_tp if m else None)} | {'-' if not m or m.rdi is None else f'{m.rdi:+.3f}'} | "
            f"{cal.presence.value} | {cal.omission.value} | {cal.content.value} | {cal.direction.value} | "
            f"{cal.gate.addition_min_confidence:g} | {cal.gate.deletion_block_confidence:g} |")
    return "\n".join(lines)


def debate_calibration(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, CalibrationConfig) and ctx.model is not None
    backbone = ctx.model
    calibration = measure_calibration(ctx.home, backbone, judge=config.judge, runs=config.runs)
    recorded = record_calibration(ctx.home.events, calibration)
    latest = latest_calibration(ctx.home.events, backbone)
    ctx.log(f"{backbone}: calibrated configuration {calibration.config_hash}"
            + ("" if recorded else " (already recorded)"))
    return StageResult(metadata={
        "config_hash": calibration.config_hash, "config_name": calibration.config.name,
        "recorded_now": recorded, "current": latest is not None and latest.config_hash == calibration.config_hash,
        "judge": calibration.judge, "runs": str(list(calibration.runs)), "contracts": calibration.contracts,
        "instances": calibration.instances,
        "rdi": "-" if calibration.profile.rdi is None else f"{calibration.profile.rdi:+.3f}",
        "profile": Markdown(_profile_table(calibration))})


def _debate_bar(spec: ModelSpec, label: str) -> ProgressBar | None:
    return None if spec.provider == "offline" else ProgressBar(label, spec.price)


def debate_outcomes(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, DebateRunConfig)
    backbone, run = _partition(ctx)
    spec = get_model(ctx.home, backbone)
    summary = run_debate(ctx.home, backbone, run, config.subset, config.config,
                         progress=_debate_bar(spec, f"{backbone} run {run} debate:"))
    finished = summary.decided + summary.already_decided
    passed = finished == summary.instances
    check = CheckOutcome(
        name="every_baseline_debated", passed=passed,
        description="every instance of the subset with a baseline has a debate outcome",
        summary=(f"all {summary.instances} instances decided" if passed else
                 f"{summary.instances - finished} of {summary.instances} instances without an outcome: "
                 + "; ".join(f"{n.subject} ({n.reason})" for n in summary.failures[:5])),
        metadata={"instances": summary.instances, "decided": finished, "failed": len(summary.failures),
                  "missing_baselines": summary.missing_baselines})
    return StageResult(metadata=summary.metadata(), checks=[check],
                       failures=[(n.subject, n.reason) for n in summary.failures[:20]])


def debate_verdicts(ctx: StageContext) -> StageResult:
    config = ctx.config
    assert isinstance(config, DebateJudgeConfig)
    backbone, run = _partition(ctx)
    judge = get_model(ctx.home, config.judge or primary_judge(ctx.home))
    summary = judge_debate(ctx.home, backbone, run, judge.name,
                           progress=_debate_bar(judge, f"{backbone} run {run} debate judging ({judge.name}):"))
    labelled = summary.judged + summary.reused_verdicts + summary.already_judged
    passed = labelled == summary.true_positives
    check = CheckOutcome(
        name="every_debated_tp_judged", passed=passed,
        description="the evaluation judge labelled every true positive of the debated outputs",
        summary=(f"all {summary.true_positives} true positives judged" if passed
                 else f"{summary.true_positives - labelled} of {summary.true_positives} true positives unjudged"),
        metadata={"judge": judge.name, "true_positives": summary.true_positives, "labelled": labelled})
    return StageResult(metadata=summary.metadata(), checks=[check], failures=summary.failures[:20])


# Derived figures --------------------------------------------------------------------------------------

def model_drift(ctx: StageContext) -> StageResult:
    """The newest round's changes (the monitoring series' detection, docs/method.md section 12), the runs without a
    content figure, and whether the provider served the newest run another model version."""
    from lhl_platform.clause.monitor import MONITOR
    from lhl_platform.monitoring.report import change_line, monitor_report

    with read_warehouse(ctx.home) as con:
        monitored, unjudged = monitor_report(con, "clause", "Clause extraction (CUAD)", MONITOR), unjudged_runs(con)
        recorded, changes = served_model_changes(con)
    newest = monitored.rounds[-1] if monitored.rounds else None
    found = [c for c in monitored.changes if c.run == newest]
    table = "\n".join(f"- {change_line(MONITOR, c)}" for c in found) or "no change in the newest round"
    if not recorded:
        summary = "no model.call event records the served model version yet: nothing to compare"
    elif not changes:
        summary = "every model's newest run was served a model version its earlier runs were served"
    else:
        summary = "; ".join(f"{c['model']} run {c['newest_run']} was served {', '.join(c['newest'])} "
                            f"(earlier: {', '.join(c['earlier'])})" for c in changes)
    served = CheckOutcome(
        name="same_served_model", passed=not changes, summary=summary,
        description="the provider served the newest run the model version(s) it served the earlier runs",
        metadata={"calls_recording_it": recorded, "models_changed": len(changes),
                  "changes": "; ".join(f"{c['model']}: {c['earlier']} -> {c['newest']}" for c in changes)})
    return StageResult(metadata={
        "newest_round": newest or 0, "tests": sum(c.p is not None for c in monitored.comparisons if c.run == newest),
        "changes": len(found), "unjudged_runs": len(unjudged), "newest_round_changes": Markdown(table),
        "served_model_calls": recorded, "served_model_changes": len(changes)},
        checks=[served])


def judge_agreement(ctx: StageContext) -> StageResult:
    home = ctx.home
    primary = primary_judge(home)
    rows = []
    for other in (j for j in judges(home) if j != primary):
        try:
            result = agreement_between(home, primary, other, resamples=1000)
        except LookupError:
            continue  # these two judges share no labelled true positive
        shifts = ", ".join(f"{m.model} {m.rdi_shift:+.3f}" for m in result.models if m.rdi_shift is not None)
        rows.append(f"| {other} | {result.n} | {_fmt(result.kappa_binary)} | {_fmt(result.kappa_direction)} | "
                    f"{shifts or '-'} |")
    table = (f"| vs {primary} | n | kappa binary | kappa direction | RDI shift |\n|---|---|---|---|---|\n"
             + "\n".join(rows))
    return StageResult(metadata={"pairs": len(rows), "agreement": Markdown(table)})


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
