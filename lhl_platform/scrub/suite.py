"""ContractScrub as the platform runs it (docs/method.md section 15): does a model find the drafting defects of
a contract before signature? Each model under test answers one call per (contract, category) of an item set;
the answers are scored deterministically (multiset matching of normalised tuples, no judge) and the marts add the
counts up. Registered in `lhl_platform.catalog`; importing this module registers the suite's event types."""

from __future__ import annotations

from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.report.reporting import SectionReporting
from lhl_platform.scrub import events as _events  # noqa: F401  (registers the suite's event types)
from lhl_platform.scrub import lineage, report
from lhl_platform.scrub.models import OFFLINE_MODELS
from lhl_platform.scrub.monitor import MONITOR
from lhl_platform.scrub.store import recorded_sets
from lhl_platform.scrub.verdict import VERDICT_RULE
from lhl_platform.suites.contract import CheckSpec, Demo, ItemSet, Job, MartCheck, Section, Stage, Suite
from lhl_platform.suites.kit import partition_tags
from lhl_platform.suites.refs import lazy
from lhl_platform.warehouse.scope import SuiteScope
from sql import SQL_DIR

stages = lazy("lhl_platform.scrub.stages")  # the stages' functions and configs, imported when a stage runs

NAME = "contractscrub"
PARTITION_JOB = "scrub_partition"
ITEMS_JOB = "scrub_item_set"
GOLD_JOB = "scrub_gold"


_tags = partition_tags(NAME)


def _item_sets(home: Home) -> list[ItemSet]:
    out = []
    for s in recorded_sets(home).values():
        source = (f"built from corpus {s.corpus}, seed {s.seed}" if isinstance(s, _events.ScrubItemsBuilt)
                  else f"ingested from {s.file_name}")
        out.append(ItemSet(id=s.item_set, name="", items=len(s.contract_ids), source=source,
                           self_built=s.provenance.startswith("self-built")))
    return out


DEMO_CONTRACTS, DEMO_SEED = 4, 0  # `lhl demo`: a small self-built set from the demo corpus


def _demo_items(home: Home) -> str:
    from lhl_platform.scrub.stages import build_set

    return build_set(home, DEMO_CONTRACTS, DEMO_SEED).describe()


SELF_BUILT_NOTE = ("A set built by `lhl scrub build` is self-built: drafting defects injected into real contracts "
                   "and verified, not annotated by lawyers (synthetic defects are easier to find than a lawyer's), "
                   "and its defined_terms gold is derived by the definition parser. See the item set section.")

SUITE = Suite(
    name=NAME,
    title="ContractScrub",
    description="Does a model find the drafting defects of a contract before signature? One call per (contract, "
                "category) over 9 categories; deterministic multiset matching of normalised findings; per-category "
                "and overall (mean over the categories with gold) recall, precision and F1, the term-only ablation, "
                "recall of section references by distance (seed 002).",
    stages=(
        Stage("scrub_items", "The ContractScrub item set: the active one (recorded last), or one built from the "
              "active corpus by seeded defect injection (`contracts`, `seed`: self-built, verified) or ingested "
              "from a release JSONL (`path`).", stages.scrub_items, kind="items", partitioning="none",
              config=stages.ItemsConfig, after=("contracts",),
              feeds=("scrub.items_built", "scrub.items_ingested", "scrub.item")),
        Stage("scrub_findings", "The model under test scrubs every contract of the item set: one call per "
              "(contract, category) with the category's title, definition, instruction and strict schema; "
              "temperature and reasoning effort as registered; a prompt past the context window, a failed call "
              "or an unparseable answer is a recorded failure and a missing call.", stages.scrub_findings,
              config=stages.FindingsConfig, after=("scrub_items",),
              checks=(CheckSpec("every_call_answered", "every (contract, category) of the set has an answer"),),
              spends=True, feeds=("scrub.scope", "scrub.findings_recorded", "scrub.findings_failed")),
        Stage("scrub_scores", "Every answered call's findings matched against the gold (normalised tuples, multiset "
              "matching, order-free pairs, term-only, section-reference distances): one scrub.scored event per "
              "call.", stages.scrub_scores, kind="score", config=stages.ScoresConfig,
              after=("scrub_findings", "scrub_items", "scrub_gold_versions"),
              feeds=("scrub.scored", "review.scrub_scored")),
        Stage("scrub_gold_versions", "The gold versions of the active item set: version 1 as built or ingested, "
              "each later one made by `lhl review import` (who reviewed, how many rows of the sheet, the decisions' "
              "events, a digest of the gold); the data version changes with every new version.",
              lineage.scrub_gold_versions, kind="derived", partitioning="none", after=("scrub_items",), eager=True,
              feeds=lineage.FEEDS),
    ),
    jobs=(Job(PARTITION_JOB, ("scrub_findings", "scrub_scores"),
              "Scrub and score one (model, run) partition of ContractScrub on the active (or given) item set.",
              tags=_tags),
          Job(ITEMS_JOB, ("scrub_items", "scrub_gold_versions"), "Record (or re-show) the active ContractScrub "
              "item set and its gold versions.",
              partitioning="none"),
          Job(GOLD_JOB, ("scrub_gold_versions",), "Show the active item set's gold versions (run by `lhl review "
              "import` once it made one).", partitioning="none")),
    sql=SQL_DIR / "scrub",
    sections=(
        Section("leaderboard", "Leaderboard", report.ScrubLeaderboardRow, report.leaderboard_rows,
                note="Overall R, P and F1 are unweighted means over the 9 categories of the per-category figures "
                     "(each over the categories where it exists); recall is primary (precision is a lower bound "
                     "where contracts hold defects nobody annotated). Recall interval: 95% contract-cluster "
                     "bootstrap. A missing call is left out of every count, and its model is incomplete: no "
                     "overall figures (null, never a mean over what it answered) and no rank; its per-category "
                     "figures remain (coverage section). Ranked: complete and audited in every run in scope, by "
                     "overall recall. " + SELF_BUILT_NOTE),
        Section("by_category", "Per category", report.ScrubCategoryRow, report.category_rows,
                note="Multiset matching of normalised tuples per call, pooled over the contracts and runs in scope."),
        Section("coverage", "Coverage", report.ScrubCoverageRow, report.coverage_rows,
                note="Per model: the runs the scope asks for and those it was audited in, the calls asked (nine per "
                     "contract and run), answered and missing, the categories of its missing calls and those it "
                     "never answered. Complete: every call asked answered; ranked: complete in every run in scope."),
        Section("recall", "Recall per category with intervals", report.ScrubRecallRow, report.recall_rows,
                note="95% contract-cluster bootstrap intervals (contracts drawn with replacement, with all their "
                     "runs and calls).", figure=report.recall_figure),
        Section("terms_only", "Term-only ablation", report.ScrubTermsOnlyRow, report.terms_only_rows,
                note="The location fields left out of every tuple; 8 categories (inconsistent language has no "
                     "term)."),
        Section("by_distance", "Section references by distance", report.ScrubDistanceRow, report.distance_rows,
                note="Recall of incorrect section references by characters between the reference and the section it "
                     "should point to (the paper: recall falls past 10,000 characters)."),
        Section("usage", "Calls, cost and seconds", report.ScrubUsageRow, report.usage_rows,
                note="Per contract: per (contract, run) scrubbed, nine calls each; null where no call was recorded "
                     "(findings imported from elsewhere)."),
        Section("item_set", "Item set", report.ScrubItemSetRow, report.item_set_rows,
                note="Synthetic defects follow the rules that define them and are easier to find than a lawyer's: "
                     "figures on a self-built set are not comparable with the paper's."),
        Section("gold", "Gold per category", report.ScrubGoldRow, report.gold_rows,
                note="Injected gold was written at injection time and kept only where the verifier found the defect "
                     "holds; derived gold is what the documented definition parser reads."),
        Section("missing", "Missing calls", report.ScrubMissingRow, report.missing_rows,
                note="Calls without an answer (failed, unparseable, past the context window, or absent from an "
                     "import): left out of every figure."),
    ),
    checks=(
        MartCheck("calls_complete", "scrub_missing", "every (model, run, contract, category) in scope has an answer "
                  "(names the missing calls and their recorded failure)", report.calls_complete),
        MartCheck("gold_scores_itself", "scrub_by_category", "the scope's gold scored against itself is 1.0 in every "
                  "category (and a perfect calibration model in scope scores 1.0 through the marts)",
                  report.gold_scores_itself),
    ),
    commands=lazy("lhl_platform.scrub.commands").COMMANDS,
    item_sets=_item_sets,
    compare=report.COMPARE,
    units="scrub_compare_units",
    offline_models=OFFLINE_MODELS,
    scope=SuiteScope(suite=NAME, cells="scrub_cells", gold="int_scrub_gold_versions"),
    plan=stages.plan_calls,
    reporting=SectionReporting(verdict=VERDICT_RULE),  # the shared report of its sections; its verdict's rule
    monitor=MONITOR,  # headline figures by audit round: `lhl monitor`, the trend section, no_change_detected
    demo=Demo(
        models=((ModelSpec(name="scrub-rules", provider="offline", model_id="scrub-rules"),
                 "rule-based scrubber (a real baseline; never sees the gold)"),
                (ModelSpec(name="scrub-gpt-5.5-calibrated", provider="offline",
                           model_id="scrub-calibrated:paper-gpt-5.5"),
                 "calibration: reads the gold, keeps and invents findings at the paper's GPT-5.5 rates")),
        prepare=_demo_items,
        columns=("model", "rank", "recall", "recall_ci_low", "recall_ci_high", "precision", "f1", "missing_calls"),
        note="overall = mean of the per-category figures, over the categories where each exists"),
)
