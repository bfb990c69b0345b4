"""The clause suite's typed result model: one row class per SQL mart of `sql/clause/` and `sql/lexflip/`, plus the
rows its report computes in Python (the row base, `derived` and the cost rows are every suite's: `report/marts.py`).

Every such mart has exactly one row class here (`MARTS`); `tests/test_mart_contract.py` checks each class against
its mart's columns and types, so a column added in SQL without its field here fails. The report reads every
section through these classes, `lhl report --schema` prints their JSON schema, and `lhl publish` writes them to a
database as tables (one SQLModel table class per row class, made in `publish.py`). The row classes themselves are
plain Pydantic models, so that a report never loads SQLAlchemy.

Fields marked `derived` are not mart columns: the report adds them (bootstrap intervals). The field order is
the order of the report's JSON and must stay as it is (consumers compare the JSON byte for byte).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from lhl_platform.report.marts import (
    BatchSavingsRow,
    CostOverTimeRow,
    CostPerCorrectRow,
    CostStageRow,
    Row,
    derived,
)

# --- the report's sections -------------------------------------------------------------------------------------


class MetricRow(Row):
    """Counts and rates of one group of returned instances (docs/method.md, section 5)."""

    model: str
    runs: int
    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    supported: int
    contradicted: int
    n_missing_condition: int
    n_extra_condition: int
    far: float | None
    frr: float | None
    acc: float | None
    hal_tp: float | None
    hal_gen: float | None
    jeq: float | None
    rdi: float | None
    rdi_ci_low: float | None = derived("lower end of the 95% bootstrap interval of RDI")
    rdi_ci_high: float | None = derived("upper end of the 95% bootstrap interval of RDI")
    missing_rows: int


class LeaderboardRow(MetricRow):
    """`leaderboard`: one row per model, pooled over runs, on the model's own instances."""

    contracts: int
    coverage_differs: bool


class RunRow(MetricRow):
    """`per_run_metrics`: one row per (model, run)."""

    run: int


class CategoryRow(MetricRow):
    """`typed_profiles`: one row per (model, category), pooled over runs."""

    category: str


class ClauseRow(MetricRow):
    """`clause_profiles`: one row per (model, clause type), pooled over runs."""

    category: str
    clause_type: str


class GapRow(Row):
    """`category_gaps`: the spread of HalTP across a model's categories."""

    model: str
    gap: float | None
    max_category: str | None
    min_category: str | None


class CompositeRow(Row):
    """`composite_ranks`: weighted mean rank per scheme over the matched cells (lower is better)."""

    scheme: str
    model: str
    score: float | None
    rank: int | None


class UsageRow(Row):
    """`usage_costs`: calls, tokens and cost per (model, run)."""

    model: str
    run: int
    extraction_calls: int
    judge_calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    extraction_cost_usd: float | None
    judge_cost_usd: float | None
    cost_usd: float | None


class RdiRow(Row):
    """`rdi`: the Risk Direction Index per model (category null) and per (model, category)."""

    model: str
    category: str | None
    contradicted: int
    n_missing_condition: int
    n_extra_condition: int
    n_scope: int
    p_missing: float | None
    p_extra: float | None
    p_scope: float | None
    rdi: float | None
    rdi_ci_low: float | None = derived("lower end of the 95% bootstrap interval of RDI")
    rdi_ci_high: float | None = derived("upper end of the 95% bootstrap interval of RDI")

    @property
    def p_other(self) -> float | None:
        """The share of contradictions that are neither a missing nor an extra condition nor a scope error (a
        changed number, date or obligation, or another change), so the four shares add up to all of them."""
        if not self.contradicted:
            return None
        rest = self.contradicted - self.n_missing_condition - self.n_extra_condition - self.n_scope
        return rest / self.contradicted


class RunSummaryRow(Row):
    """`run_summary`: mean and sample SD across runs of each per-run rate (SD null with one run)."""

    model: str
    runs: int
    far_mean: float | None
    far_sd: float | None
    frr_mean: float | None
    frr_sd: float | None
    acc_mean: float | None
    acc_sd: float | None
    hal_tp_mean: float | None
    hal_tp_sd: float | None
    hal_gen_mean: float | None
    hal_gen_sd: float | None
    jeq_mean: float | None
    jeq_sd: float | None
    rdi_mean: float | None
    rdi_sd: float | None


class DebateEffectRow(Row):
    """`debate_effects`: base versus debate on the same instances, per (backbone, run, subset, configuration)."""

    backbone: str
    run: int
    subset: str | None
    config: str
    decisions: int
    fp_base: int
    fp_debate: int
    fn_base: int
    fn_debate: int
    contradicted_base: int
    contradicted_debate: int
    far_base: float | None
    far_debate: float | None
    frr_base: float | None
    frr_debate: float | None
    hal_gen_base: float | None
    hal_gen_debate: float | None
    rdi_base: float | None
    rdi_debate: float | None
    mean_rounds: float | None
    share_round1: float | None
    consensus_rate: float | None
    flip_rate: float | None
    calls_per_decision: float | None
    tokens_per_decision: float | None


class DebateCategoryRow(Row):
    """`debate_by_category`: the debate's effect in one category (debate minus base on the same instances)."""

    backbone: str
    run: int
    subset: str | None
    config: str
    category: str
    delta_far: float | None
    delta_hal_gen: float | None
    rdi_shift: float | None
    flip_rate: float | None


# --- statistics marts ----------------------------------------------------------------------------------------


class RunSpreadRow(Row):
    """`run_spread`: mean, sample SD, min and max across runs of one rate, pooled (category null) or per category."""

    model: str
    category: str | None
    metric: str
    runs: int
    runs_with_value: int
    mean: float | None
    sd: float | None
    min_value: float | None
    max_value: float | None


class MissingSummaryRow(Row):
    """`missing_summary`: missing rows per model and how they fall on contracts (persistent or not)."""

    model: str
    runs: int
    contracts: int
    nominal_rows: int
    missing_rows: int
    missing_fraction: float | None
    contracts_incomplete: int
    contracts_persistent: int
    persistent_fraction: float | None
    persistent_missing_rows: int
    persistent_row_share: float | None


class ClauseTypeMeanRow(Row):
    """`clause_type_means`: per clause type, the mean across models of each rate."""

    clause_type: str
    category: str
    models: int
    far_mean: float | None
    frr_mean: float | None
    acc_mean: float | None
    hal_tp_mean: float | None
    hal_gen_mean: float | None
    jeq_mean: float | None
    rdi_mean: float | None


class ProvenanceRow(Row):
    """`provenance`: who produced the figures of one (model, run): extractor, judge or an import."""

    model: str
    run: int
    role: str
    name: str
    model_id: str | None
    prompt_version: str | None
    items: int


class ContractCountsRow(Row):
    """`contract_counts`: per (model, run, category, contract) counts, the contract-cluster bootstraps' input."""

    model: str
    run: int
    category: str
    contract_id: str
    matched: bool
    tp: int
    fp: int
    fn: int
    tn: int
    judged: int
    judged_fp: int
    judged_fn: int
    supported: int
    contradicted: int
    n_extra_condition: int
    n_missing_condition: int
    n_scope: int


# --- the other marts (instance level, scope and intermediate results) ----------------------------------------


class AuditScopeRow(Row):
    """`audit_scope`: the (model, run, contract) cells in scope."""

    model: str
    run: int
    contract_id: str


class MatchedCellRow(Row):
    """`matched_cells`: the (contract, run) cells every maximal system covers (partial systems never shrink them)."""

    contract_id: str
    run: int


class ScopeCoverageRow(Row):
    """`scope_coverage`: one system's coverage of the scope (asked, covered, missing) and whether it is ranked."""

    model: str
    contracts_asked: int = Field(description="contracts the scope asks for: its subset's, else its corpus's")
    runs_asked: list[int] = Field(description="runs the scope asks for: those given, else every "
                                                            "audited run")
    contracts_covered: int = Field(description="asked contracts the system covers in at least one asked run")
    contracts_complete: int = Field(description="asked contracts the system covers in every asked run")
    contracts_missing: int = Field(description="asked contracts the system covers in no asked run")
    runs_covered: list[int]
    cells: int = Field(description="(contract, run) cells the system covers")
    nominal_rows: int = Field(description="cells x 41 clause types")
    returned_rows: int
    missing_rows: int = Field(description="instances of covered cells never returned (docs/method.md, 7)")
    matched_contracts: int
    matched_runs: list[int]
    matched_cells: int
    ranked: bool = Field(description="covers every matched cell: ranked in the cross-model figures")
    coverage_differs: bool = Field(description="its cells differ from the matched cells")
    own_scope: bool = Field(description="not ranked, and a scope with its runs ranks it: the scope's contracts, or "
                                        "`own_subset`'s, where no system covers a cell of its runs it lacks")
    own_subset: str | None = Field(description="the subset of that scope: the smallest stored subset holding every "
                                               "contract it covers (the scope's own when its contracts do)")
    judge: str = Field(description="the scope's judge")
    true_positives: int = Field(description="TPs of its returned instances in scope")
    judged_tp: int = Field(description="of those, the TPs the scope's judge decided (supported or contradicted): "
                                       "the content figures' TPs")
    imported_tp: int = Field(description="of the labelled TPs, those with the verdict they were imported with")
    judged_runs: list[int] = Field(description="runs in which the scope's judge labelled a TP")
    tp_contracts: int = Field(description="contracts with a TP")
    judged_contracts: int = Field(description="contracts with a TP the scope's judge labelled")
    undetermined_tp: int = Field(description="TPs the scope's judge left undetermined: in no content figure")
    cells_after_pass: int = Field(description="(run, contract) cells added after the judge's pass over their run: "
                                              "unlabelled until judged")


class InstanceRow(Row):
    """`instance_rows`: every recorded instance in scope before de-duplication."""

    model: str
    run: int
    contract_id: str
    clause_type: str
    category: str
    gt_present: bool
    predicted_present: bool
    outcome: str
    verdict: str | None
    mismatch_type: str | None
    source: str
    time: str


class InstanceOutcomeRow(Row):
    """`instance_outcomes`: one row per instance in scope with its outcome, verdict and mismatch type."""

    model: str
    run: int
    contract_id: str
    clause_type: str
    category: str
    gt_present: bool
    predicted_present: bool
    outcome: str
    verdict: str | None
    mismatch_type: str | None
    source: str


class MissingRow(Row):
    """`missing_rows`: an instance the model never returned."""

    model: str
    run: int
    contract_id: str
    clause_type: str
    category: str


class MissingByContractRow(Row):
    """`missing_by_contract`: missing rows attributed to a contract; persistent when incomplete in every run."""

    model: str
    contract_id: str
    runs_audited: int
    runs_incomplete: int
    missing_instances: int
    incomplete_runs: list[int]
    persistent: bool


class MetricCubeRow(Row):
    """`metric_cube`: counts and rates at every reporting grain (`level`)."""

    level: str
    model: str
    run: int | None
    category: str | None
    clause_type: str | None
    runs: int
    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    judged: int
    judged_fp: int
    judged_fn: int
    supported: int
    contradicted: int
    n_missing_condition: int
    n_extra_condition: int
    n_scope: int
    missing_rows: int
    far: float | None
    frr: float | None
    acc: float | None
    hal_tp: float | None
    hal_gen: float | None
    jeq: float | None
    rdi: float | None


class RdiUnitRow(Row):
    """`rdi_units`: contradicted TPs and their direction labels per (model, run, category, contract)."""

    model: str
    run: int
    category: str
    contract_id: str
    contradicted: int
    n_extra: int
    n_missing: int


class ClauseMonitorRow(Row):
    """`clause_monitor`: one headline metric of one (model, run, category) as units and sums (the monitoring
    series' statistics, `lhl_platform.monitoring`), with the round's date, judge and whether it is partial."""

    model: str
    run: int
    at: str | None
    judge: str | None
    gold_version: int | None
    partial: bool
    category: str | None
    metric: str
    n: int
    s1: float
    s2: float


class DebateInstanceRow(Row):
    """`debate_instances`: one debated instance with the base and debate outcomes and the report judge's verdicts."""

    backbone: str
    system: str
    run: int
    subset: str | None
    config: str
    config_hash: str
    contract_id: str
    clause_type: str
    category: str
    outcome_base: str
    outcome_debate: str
    verdict_base: str | None
    mismatch_base: str | None
    verdict_debate: str | None
    mismatch_debate: str | None
    flipped: bool
    text_changed: bool
    rounds: int
    consensus: bool
    re_extracted: bool
    arbitrated: bool
    calls: int
    reused_calls: int
    input_tokens: int
    output_tokens: int


class JudgeValidationRow(Row):
    """`judge_validations`: each judge's latest validation for the scope's corpus, gated on held-out evidence."""

    judge: str
    judge_version: str | None
    suite_version: str
    suite_digest: str
    items: int
    passed: bool | None = Field(description="validated: passed every held-out set shipped now; false: failed one; "
                                            "null: its latest result lacks one (validate it again)")
    identical: float | None = Field(description="in-sample: share of identical pairs judged supported")
    force_changed: float | None = Field(description="in-sample: share of force-changing edits judged contradicted")
    right_mismatch: float | None = Field(description="in-sample: share of decided force-changing edits given the "
                                                     "expected mismatch type")
    force_kept: float | None = Field(description="in-sample: share of force-keeping rewrites judged supported")
    validated_at: str
    gate: str = Field(description="what validates a judge: `held_out`, every held-out set shipped now")
    in_sample_passed: bool | None = Field(description="its result on the in-sample LexFlip suite, which its rules "
                                                      "may have been written from: reported, never validating")
    held_out_sets: list[str] = Field(description="the held-out sets the gate reads (shipped now)")
    held_out_missing: list[str] = Field(description="held-out sets its latest result lacks")
    held_out_failed: list[str] = Field(description="held-out sets it fails")


class JudgeHeldOutFamilyRow(Row):
    """`judge_heldout_families`: a judge's latest validation on one family of one held-out set shipped now."""

    judge: str
    set: str
    sha256: str
    family: str
    items: int
    decided: int = Field(description="items it labelled supported or contradicted")
    undetermined: int = Field(description="items it abstained on: its evidence did not decide")
    unanswered: int = Field(description="items it gave no usable answer for (a failed call)")
    decided_share: float | None = Field(description="decided / items; the gate needs at least 0.50")
    accuracy_decided: float | None = Field(description="share of the decided items judged as expected")
    as_expected: float | None = Field(description="share of all items judged as expected (undecided ones count "
                                                  "against)")
    right_mismatch: float | None = Field(description="force_changed: share of decided items with the expected "
                                                     "mismatch type")
    passed: bool


class JudgePairVerdictRow(Row):
    """`judge_pair_verdicts`: a true positive in scope labelled by the report's judge (a) and another judge (b)."""

    model: str
    run: int
    contract_id: str
    clause_type: str
    judge_a: str
    verdict_a: str
    mismatch_a: str | None
    judge_b: str
    verdict_b: str
    mismatch_b: str | None


# --- rows the report computes in Python ----------------------------------------------------------------------


class RateIntervalRow(Row):
    """A rate with its 95% bootstrap interval, for a model pooled over runs (run null), one run, or one category
    (category null means all categories). `numerator` / `denominator` are the counts behind the rate."""

    model: str
    run: int | None
    category: str | None
    metric: str
    value: float | None
    numerator: int
    denominator: int
    ci_low: float | None
    ci_high: float | None


class RankStabilityRow(Row):
    """How firmly a model holds its composite rank under one scheme: the share of contract-cluster bootstrap
    resamples (matched cells) in which it keeps the rank it has on the full data, and its mean resampled rank."""

    scheme: str
    model: str
    rank: int | None
    stability: float | None
    mean_rank: float | None
    resamples: int


# Every SQL mart and its row class. A mart without a class here fails the contract test.
MARTS: dict[str, type[Row]] = {
    "audit_scope": AuditScopeRow,
    "batch_savings": BatchSavingsRow,
    "category_gaps": GapRow,
    "clause_profiles": ClauseRow,
    "clause_type_means": ClauseTypeMeanRow,
    "composite_ranks": CompositeRow,
    "contract_counts": ContractCountsRow,
    "cost_by_stage": CostStageRow,
    "cost_over_time": CostOverTimeRow,
    "cost_per_correct": CostPerCorrectRow,
    "debate_by_category": DebateCategoryRow,
    "debate_effects": DebateEffectRow,
    "debate_instances": DebateInstanceRow,
    "clause_monitor": ClauseMonitorRow,
    "instance_outcomes": InstanceOutcomeRow,
    "instance_rows": InstanceRow,
    "judge_heldout_families": JudgeHeldOutFamilyRow,
    "judge_pair_verdicts": JudgePairVerdictRow,
    "judge_validations": JudgeValidationRow,
    "leaderboard": LeaderboardRow,
    "matched_cells": MatchedCellRow,
    "metric_cube": MetricCubeRow,
    "missing_by_contract": MissingByContractRow,
    "missing_rows": MissingRow,
    "missing_summary": MissingSummaryRow,
    "per_run_metrics": RunRow,
    "provenance": ProvenanceRow,
    "rdi": RdiRow,
    "rdi_units": RdiUnitRow,
    "run_spread": RunSpreadRow,
    "run_summary": RunSummaryRow,
    "scope_coverage": ScopeCoverageRow,
    "typed_profiles": CategoryRow,
    "usage_costs": UsageRow,
}

# Rows computed by the report rather than read from a mart (published as tables of these names).
COMPUTED: dict[str, type[Row]] = {
    "rate_intervals": RateIntervalRow,
    "rank_stability": RankStabilityRow,
}


def schema_document() -> dict[str, Any]:
    """One JSON Schema (2020-12) for every row class: `$defs` holds the classes, `properties` names each mart
    (and each computed table) as an array of its rows. Fields the report adds are marked `"derived": true`."""
    from pydantic.json_schema import models_json_schema

    tables = {**MARTS, **COMPUTED}
    classes = list(dict.fromkeys(tables.values()))
    _, defs = models_json_schema([(cls, "serialization") for cls in classes], ref_template="#/$defs/{model}")
    properties = {name: {"type": "array", "description": (cls.__doc__ or "").split("\n")[0],
                         "items": {"$ref": f"#/$defs/{cls.__name__}"}} for name, cls in tables.items()}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "lhl result rows",
            "description": "The row type of every SQL mart and of the rows the report computes, as used by "
                           "`lhl report --format json` and `lhl publish`.",
            "type": "object", "properties": properties, "$defs": defs.get("$defs", {})}
