"""The typed debate (Experiment 2) as assets: calibration, outcomes and their verdicts.

- `debate_calibration`, partitioned by `model` (the backbone): derives the calibrated configuration from the
  backbone's measured Experiment 1 profile (its typed profiles and RDI, computed over its own audit) and
  records it as an event. Partitioned rather than one asset over the default-scope marts because a
  calibration belongs to one backbone: it is measured in a scope holding that backbone alone (so no other
  model and no debate system shifts it), each backbone's calibration is its own materialization, and
  recalibrating one backbone touches no other. Its declared inputs are the backbone's audit partitions
  (every run): the marts it reads are a projection of those events, and declaring the marts instead would
  close a cycle once the debate marts sit downstream of the debate.
- `debate_outcomes`, partitioned like the audit (backbone x run): debates every instance of a stored subset
  from the backbone's extractions of that run, with the calibrated or the generic configuration.
- `debate_verdicts`, the same partitions: the evaluation judge (the primary judge unless configured) labels
  every true positive of the debated outputs, as it labelled the baseline's.

Like the audit's assets they write events and return metadata and partition checks. The SQL models read
the events (`stg_debate_*`, `int_debate_*`, `debate_*`): lineage runs extractions -> debate_outcomes ->
debate_verdicts -> the debate marts.

The functions before the assets are the units of work they (and `lhl debate`) call: they resolve the
registry, the corpus and the warehouse, which the debate package itself may not import.
"""


import asyncio
from collections.abc import Iterator
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetSelection,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
    define_asset_job,
)
from pydantic import Field

from assets.audit import extractions, judge_verdicts
from assets.corpus import oracle
from assets.partitions import audit_partitions, model_and_run, model_partitions
from lhl_platform.audit import resolve
from lhl_platform.corpus.store import load_corpus
from lhl_platform.debate.calibration import (
    calibrated_config,
    calibration_from_rows,
    latest_calibration,
    record_calibration,
)
from lhl_platform.debate.config import GENERIC, DebateConfig
from lhl_platform.debate.engine import DebateSummary, debate_stream, run_debate_partition
from lhl_platform.debate.events import DebateCalibration
from lhl_platform.debate.offline import OfflineDebateModel
from lhl_platform.debate.verdicts import (
    DebateJudgeSummary,
    baseline_verdicts,
    current_outcomes,
    judge_debate_partition,
)
from lhl_platform.domain.models import ModelSpec
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.judging.engine import recorded_extractions
from lhl_platform.progress import Progress, ProgressBar
from lhl_platform.providers.base import ChatModel
from lhl_platform.registry import get_model, primary_judge
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest, resolved_scope
from resources import LhlHome

CONFIG_KINDS = ("calibrated", "generic")


# Units of work ------------------------------------------------------------------------------------

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
    clean = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in rows]
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


def _bar(spec: ModelSpec, label: str) -> ProgressBar | None:
    return None if spec.provider == "offline" else ProgressBar(label, spec.price)


# Assets ---------------------------------------------------------------------------------------------

class CalibrationConfig(Config):  # type: ignore[misc]
    judge: str | None = Field(default=None, description="judge whose verdicts the profile is measured with "
                                                        "(default: the primary judge)")
    runs: list[int] | None = Field(default=None, description="audited runs to measure (default: all)")


class DebateRunConfig(Config):  # type: ignore[misc]
    subset: str = Field(description="the stored subset of contracts to debate (lhl subset create)")
    config: str = Field(default="calibrated", description="calibrated (the backbone's latest calibration) or "
                                                          "generic (the untargeted ablation)")


class DebateJudgeConfig(Config):  # type: ignore[misc]
    judge: str | None = Field(default=None, description="the evaluation judge (default: the primary judge, the "
                                                        "one that scored the baseline in reports)")


def _profile_table(calibration: DebateCalibration) -> str:
    lines = ["| category | FAR | FRR | HalTP | RDI | presence | omission | content | direction | addition gate "
             "min conf. | deletion block conf. |", "|---|---|---|---|---|---|---|---|---|---|---|"]

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}"

    for category, cal in calibration.config.categories.items():
        m = calibration.profile.categories.get(category)
        lines.append(
            f"| {category.value} | {pct(m.far if m else None)} | {pct(m.frr if m else None)} | "
            f"{pct(m.hal_tp if m else None)} | {'-' if not m or m.rdi is None else f'{m.rdi:+.3f}'} | "
            f"{cal.presence.value} | {cal.omission.value} | {cal.content.value} | {cal.direction.value} | "
            f"{cal.gate.addition_min_confidence:g} | {cal.gate.deletion_block_confidence:g} |")
    return "\n".join(lines)


@asset(
    group_name="debate", partitions_def=model_partitions,
    deps=[extractions, judge_verdicts],
    description="The calibrated debate configuration of a backbone, derived from its measured Experiment 1 "
                "profile (per-category FAR, FRR, HalTP and RDI, read from the warehouse in a scope holding the "
                "backbone alone); recorded as a debate.calibrated event.",
)
def debate_calibration(context: AssetExecutionContext, config: CalibrationConfig, lhl: LhlHome) -> MaterializeResult:
    home = lhl.home()
    backbone = str(context.partition_key)
    calibration = measure_calibration(home, backbone, judge=config.judge, runs=config.runs)
    recorded = record_calibration(home.events, calibration)
    latest = latest_calibration(home.events, backbone)
    context.log.info(f"{backbone}: calibrated configuration {calibration.config_hash}"
                     + ("" if recorded else " (already recorded)"))
    return MaterializeResult(metadata={
        "config_hash": calibration.config_hash, "config_name": calibration.config.name,
        "recorded_now": recorded, "current": latest is not None and latest.config_hash == calibration.config_hash,
        "judge": calibration.judge, "runs": str(list(calibration.runs)), "contracts": calibration.contracts,
        "instances": calibration.instances,
        "rdi": "-" if calibration.profile.rdi is None else f"{calibration.profile.rdi:+.3f}",
        "profile": MetadataValue.md(_profile_table(calibration))})


@asset(
    group_name="debate", partitions_def=audit_partitions,
    deps=[extractions, debate_calibration],
    check_specs=[AssetCheckSpec("every_baseline_debated", asset="debate_outcomes",
                                description="every instance of the subset with a baseline has a debate outcome")],
    description="The six-role debate over every instance of a stored subset, from the backbone's extractions of "
                "the run; turns, routes, gates and outcomes are events (resumable without repeating a call).",
    tags={"lhl/spends": "model-calls"},
)
def debate_outcomes(context: AssetExecutionContext, config: DebateRunConfig, lhl: LhlHome) -> Iterator[object]:
    home = lhl.home()
    backbone, run = model_and_run(context.partition_key)  # type: ignore[arg-type]
    spec = get_model(home, backbone)
    summary = run_debate(home, backbone, run, config.subset, config.config,
                         progress=_bar(spec, f"{backbone} run {run} debate:"))
    for note in summary.failures[:20]:
        context.log.warning(f"{note.subject}: {note.reason}")
    yield MaterializeResult(metadata=summary.metadata())
    finished = summary.decided + summary.already_decided
    yield AssetCheckResult(
        check_name="every_baseline_debated", passed=finished == summary.instances, severity=AssetCheckSeverity.ERROR,
        description=(f"all {summary.instances} instances decided" if finished == summary.instances else
                     f"{summary.instances - finished} of {summary.instances} instances without an outcome: "
                     + "; ".join(f"{n.subject} ({n.reason})" for n in summary.failures[:5])),
        metadata={"instances": summary.instances, "decided": finished, "failed": len(summary.failures),
                  "missing_baselines": summary.missing_baselines})


@asset(
    group_name="debate", partitions_def=audit_partitions, deps=[debate_outcomes, oracle],
    check_specs=[AssetCheckSpec("every_debated_tp_judged", asset="debate_verdicts",
                                description="the evaluation judge labelled every true positive of the debated "
                                            "outputs")],
    description="The evaluation judge's verdict (supported/contradicted, mismatch type) on every true positive "
                "of the debated outputs, asked as for the baseline.",
    tags={"lhl/spends": "model-calls"},
)
def debate_verdicts(context: AssetExecutionContext, config: DebateJudgeConfig, lhl: LhlHome) -> Iterator[object]:
    home = lhl.home()
    backbone, run = model_and_run(context.partition_key)  # type: ignore[arg-type]
    judge = get_model(home, config.judge or primary_judge(home))
    summary = judge_debate(home, backbone, run, judge.name,
                           progress=_bar(judge, f"{backbone} run {run} debate judging ({judge.name}):"))
    for subject, reason in summary.failures[:20]:
        context.log.warning(f"{subject}: {reason}")
    yield MaterializeResult(metadata=summary.metadata())
    labelled = summary.judged + summary.reused_verdicts + summary.already_judged
    yield AssetCheckResult(
        check_name="every_debated_tp_judged", passed=labelled == summary.true_positives,
        severity=AssetCheckSeverity.ERROR,
        description=(f"all {summary.true_positives} true positives judged" if labelled == summary.true_positives
                     else f"{summary.true_positives - labelled} of {summary.true_positives} true positives unjudged"),
        metadata={"judge": judge.name, "true_positives": summary.true_positives, "labelled": labelled})


DEBATE_ASSETS: list[Any] = [debate_calibration, debate_outcomes, debate_verdicts]
"""The debate's assets (their partition checks come with them), for the code location's Definitions."""

debate_job = define_asset_job(
    "debate_partition", selection=AssetSelection.assets(debate_outcomes, debate_verdicts),
    partitions_def=audit_partitions,
    description="Debate one (backbone, run) partition over a stored subset, then judge the debated outputs.")
debate_calibration_job = define_asset_job(
    "debate_calibrate", selection=AssetSelection.assets(debate_calibration), partitions_def=model_partitions,
    description="Derive a backbone's calibrated debate configuration from its measured profile.")
DEBATE_JOBS = [debate_job, debate_calibration_job]
