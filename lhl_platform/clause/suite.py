"""The clause suite as the platform runs it: CUAD clause extraction per (model, run), judged, profiled and
debated (docs/method.md). Registered in `lhl_platform.catalog`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lhl_platform.clause.audit_hooks import AUDIT, DEMO
from lhl_platform.clause.checks import (
    comparable_scope,
    completeness,
    every_tp_judged,
    labels_in_domain,
    no_duplicate_instances,
)
from lhl_platform.clause.models import OFFLINE_MODELS
from lhl_platform.clause.monitor import MONITOR
from lhl_platform.clause.reporting import REPORTING, agreement_text, measure_agreement
from lhl_platform.clause.scope import SCOPE
from lhl_platform.clause.sources import SOURCES
from lhl_platform.corpus.store import ingested_corpora
from lhl_platform.home import Home
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.registry import get_model
from lhl_platform.suites.contract import Agreement, CheckSpec, ItemSet, Job, MartCheck, Stage, Suite
from lhl_platform.suites.refs import lazy
from sql import SQL_DIR

if TYPE_CHECKING:
    import duckdb  # for annotations only: the connection is opened elsewhere, and importing duckdb costs ~0.1 s

stages = lazy("lhl_platform.clause.stages")  # the stages' functions and configs, imported when a stage runs

AUDIT_JOB, CORPUS_JOB, DEBATE_JOB, CALIBRATE_JOB = "audit_partition", "corpus", "debate_partition", "debate_calibrate"


def audit_run_config(home: Home, model: str, run: int | None) -> dict[str, dict[str, Any]]:
    """The run config every launcher gives a partition by default: the model's registered audit settings."""
    from lhl_platform.clause import stages as loaded

    return loaded.audit_run_config(loaded.partition_settings(home, model))


def partition_tags(home: Home, model: str, run: int | None) -> dict[str, str]:
    tags = {"lhl/provider": get_model(home, model).provider, "lhl/model": model}
    return tags if run is None else {**tags, "lhl/run": str(run)}


def _great_expectations(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    from lhl_platform.clause.expectations import validate_instance_rows  # pandas and GX: only when it runs

    return validate_instance_rows(con.execute("select * from instance_rows").df())


def _corpora(home: Home) -> list[ItemSet]:
    """Every ingested corpus (the demo corpus was written for this project: self-built)."""
    return [ItemSet(id=c.corpus_id, name=c.name, items=c.contracts, source=c.source,
                    self_built=c.name == "demo_data") for c in ingested_corpora(home).values()]


SUITE = Suite(
    name="clause",
    title="Clause extraction (CUAD)",
    description="Which contract clauses a model gets wrong and in which direction: detection against the oracle, "
                "a validated judge's typed verdict on every true positive, typed profiles, RDI and composite ranks; "
                "the six-role typed debate as mitigation.",
    stages=(
        Stage("contracts", "The contracts of the active corpus, content-hashed and stored in the home.",
              stages.contracts, kind="items", partitioning="none", config=stages.CorpusConfig, group="corpus",
              feeds=("corpus.ingested",)),
        Stage("oracle", "Ground truth per (contract, clause type): present when the annotated context holds a span.",
              stages.oracle, kind="items", partitioning="none", after=("contracts",), group="corpus"),
        Stage("clause_taxonomy", "The 41 CUAD clause types and their verification categories (docs/method.md, "
              "section 2).", stages.clause_taxonomy, kind="items", partitioning="none", group="corpus"),
        Stage("extractions", "One structured extraction call per contract, parsed into 41 instances; failures are "
              "events.", stages.extractions, config=stages.ExtractionConfig, after=("contracts", "oracle"),
              checks=(CheckSpec("rows_complete", "all contracts in scope x 41 clause types recorded"),
                      CheckSpec("no_duplicate_instances")), spends=True, group="audit"),
        Stage("judge_verdicts", "The evaluation judge's verdict (supported/contradicted, mismatch_type) on every TP.",
              stages.judge_verdicts, kind="score", config=stages.VerdictConfig, after=("extractions", "oracle"),
              checks=(CheckSpec("every_tp_judged"), CheckSpec("labels_in_domain")), spends=True, group="audit"),
        Stage("model_profiles", "One (model, run) partition's outcomes, typed profile, RDI units and missing rows, "
              "computed in SQL from that partition's own events (Parquet under <home>/profiles/).",
              stages.model_profiles, kind="profile", config=stages.JudgeConfig,
              after=("extractions", "judge_verdicts"), eager=True, group="profiles", kinds=("duckdb", "sql"),
              # lineage runs extractions -> judge_verdicts -> model_profiles -> the SQL models
              feeds=("audit.scope", "model.call", "model.call_failed", "batch.submitted", "batch.collected",
                     "extraction.recorded", "extraction.incomplete", "extraction.failed", "verdict.recorded",
                     "verdict.failed", "outcome.imported")),
        Stage("debate_calibration", "The calibrated debate configuration of a backbone, derived from its measured "
              "Experiment 1 profile (per-category FAR, FRR, HalTP and RDI, read from the warehouse in a scope "
              "holding the backbone alone); recorded as a debate.calibrated event.",
              stages.debate_calibration, kind="mitigate", partitioning="model", config=stages.CalibrationConfig,
              after=("extractions", "judge_verdicts"), group="debate", feeds=("debate.calibrated",)),
        Stage("debate_outcomes", "The six-role debate over every instance of a stored subset, from the backbone's "
              "extractions of the run; turns, routes, gates and outcomes are events (resumable without repeating a "
              "call).", stages.debate_outcomes, kind="mitigate", config=stages.DebateRunConfig,
              after=("extractions", "debate_calibration"),
              checks=(CheckSpec("every_baseline_debated",
                                "every instance of the subset with a baseline has a debate outcome"),),
              spends=True, group="debate", feeds=("debate.scope", "debate.turn", "debate.route", "debate.gate",
                                                  "debate.outcome", "debate.failed")),
        Stage("debate_verdicts", "The evaluation judge's verdict (supported/contradicted, mismatch type) on every "
              "true positive of the debated outputs, asked as for the baseline.", stages.debate_verdicts,
              kind="mitigate", config=stages.DebateJudgeConfig, after=("debate_outcomes", "oracle"),
              checks=(CheckSpec("every_debated_tp_judged",
                                "the evaluation judge labelled every true positive of the debated outputs"),),
              spends=True, group="debate", feeds=("debate.verdict", "debate.verdict_failed")),
        Stage("model_drift", "The newest audit round's changes of the headline figures (the monitoring series, "
              "Holm-controlled; the alert is `no_change_detected` on `clause_monitor`), the runs without a content "
              "figure, and the model version the provider reported serving.",
              stages.model_drift, kind="derived", partitioning="none", after=("clause_monitor", "per_run_metrics"),
              checks=(CheckSpec("same_served_model", "the provider served the newest run the model version(s) it "
                                                     "served the earlier runs (the response's model field)"),),
              group="monitoring"),
        Stage("judge_agreement", "Agreement of the primary judge with every other judge that labelled the same true "
              "positives: Cohen's kappa (binary and directional) and each model's RDI shift with a paired interval.",
              stages.judge_agreement, kind="derived", partitioning="none", after=("judge_verdicts",),
              group="judges"),
    ),
    jobs=(
        Job(AUDIT_JOB, ("extractions", "judge_verdicts", "model_profiles"),
            "Extract, judge and profile one (model, run) partition with the model's registered audit settings.",
            run_config=audit_run_config, tags=partition_tags),
        Job(CORPUS_JOB, ("contracts", "oracle", "clause_taxonomy"),
            "Load (or re-show) the active corpus: contracts, oracle, clause taxonomy.", partitioning="none"),
        Job(DEBATE_JOB, ("debate_outcomes", "debate_verdicts"),
            "Debate one (backbone, run) partition over a stored subset, then judge the debated outputs.",
            tags=partition_tags),
        Job(CALIBRATE_JOB, ("debate_calibration",),
            "Derive a backbone's calibrated debate configuration from its measured profile.", partitioning="model",
            tags=partition_tags),
    ),
    sql=SQL_DIR / "clause",
    scope=SCOPE,
    sources=SOURCES,
    checks=(
        MartCheck("rows_complete", "instance_outcomes", "every (model, run) covers all contracts of its audit x 41; "
                  "names incomplete contracts, persistent (every run) vs any run", completeness),
        MartCheck("labels_in_domain", "instance_outcomes", "verdicts and mismatch types in the judge vocabulary",
                  labels_in_domain),
        MartCheck("every_tp_judged", "instance_outcomes", "every TP carries a verdict", every_tp_judged),
        MartCheck("no_duplicate_instances", "instance_outcomes", "each instance recorded once",
                  no_duplicate_instances),
        MartCheck("comparable_scope", "instance_outcomes", "compared models cover the same contracts and runs (else "
                  "the composite uses the matched part)", comparable_scope),
        MartCheck("great_expectations_suite", "instance_outcomes", "Great Expectations suite on the recorded "
                  "instances before de-duplication (types, vocabularies, one record per instance)",
                  _great_expectations),
    ),
    item_sets=_corpora,
    offline_models=OFFLINE_MODELS,
    reporting=REPORTING,  # its scope is a corpus: the clause report stack, wrapped (`clause/reporting.py`)
    monitor=MONITOR,  # headline figures by audit round: `lhl monitor`, the trend section, no_change_detected
    audit=AUDIT,  # the corpus recorded first, its own estimate and re-judging (`clause/audit_hooks.py`)
    demo=DEMO,
    agreement=Agreement(measure_agreement, agreement_text, bootstraps=True),
)
