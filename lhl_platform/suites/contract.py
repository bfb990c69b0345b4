"""What a suite is: one audit of the platform's family, described as data the platform runs.

A suite has items with gold (a corpus, an item set), stages that call models per (model, run) partition (the
model under test solves, a judge scores, mitigations revise), the event types its stages record, a folder of
SQL models, report sections, checks on its marts and commands. Everything else is the platform's: the call
engine runs the stages' calls, the log stores their events, the warehouse builds the SQL, the Dagster layer
turns every stage into partitioned assets, jobs and checks (`assets/suites.py`), the report renders the
sections in every format, and the command tree takes the suite's commands. So a suite lands in its own folders
plus one registration (`lhl_platform.catalog`), and nothing here knows Dagster.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from lhl_platform.domain.models import ModelSpec
from lhl_platform.factory import OfflineEntry
from lhl_platform.home import Home
from lhl_platform.monitoring.declaration import Monitor
from lhl_platform.progress import Progress
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.suites.refs import Lazy
from lhl_platform.warehouse.scope import SuiteScope
from lhl_platform.warehouse.sources import SourceTable

if TYPE_CHECKING:
    import duckdb

    from lhl_platform.suites.reporting import Reporting

Partitioning = Literal["model_run", "model", "none"]
StageKind = Literal["items", "solve", "score", "mitigate", "profile", "derived"]


class NoConfig(BaseModel):
    """A stage that takes no run config."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Markdown(str):
    """A metadata value to show as Markdown (a table, a figure as an inline image)."""


class FilePath(str):
    """A metadata value naming a file or folder the stage wrote."""


Metadata = dict[str, int | float | str | bool]


@dataclass(frozen=True)
class CheckSpec:
    """A check a stage's result reports on, by name (shown on the stage's asset)."""

    name: str
    description: str = ""


@dataclass(frozen=True)
class StageContext:
    """What a stage's unit of work gets: the home, its partition, its validated run config, and where to say what
    it is doing. `progress(label, price)` makes a progress display for a partition's calls."""

    home: Home
    model: str | None
    run: int | None
    config: BaseModel
    log: Callable[[str], None] = print
    warn: Callable[[str], None] = print
    status: Callable[[str], None] = print
    progress: Callable[..., Progress | None] = field(default=lambda *args, **kwargs: None)

    @property
    def partition(self) -> str | None:
        if self.model is None:
            return None
        return self.model if self.run is None else f"{self.model}|{self.run}"


@dataclass
class StageResult:
    """What a stage did: metadata for its asset, the results of its checks, and the problems to log.
    `data_version`: a digest of what the asset now holds, shown as its data version (the same digest, the same
    version, however often it is materialized); None leaves the version to the orchestrator."""

    metadata: dict[str, Any] = field(default_factory=dict)
    checks: list[CheckOutcome] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    data_version: str | None = None


@dataclass(frozen=True)
class Stage:
    """One asset of a suite: partitioned by model and run (a stage that calls models), by model, or not at all
    (items, derived figures). `after` names the assets it reads (other stages, SQL models, items). `run` and
    `config` may be given as references, "package.module:name" (`suites/refs.py`), imported when first read: a
    suite's declaration then loads none of its stages' code."""

    name: str
    description: str
    run: Lazy[Callable[[StageContext], StageResult]] = Lazy()
    kind: StageKind = "solve"
    partitioning: Partitioning = "model_run"
    config: Lazy[type[BaseModel]] = Lazy(NoConfig)
    after: tuple[str, ...] = ()
    checks: tuple[CheckSpec, ...] = ()
    spends: bool = False  # it calls models that may cost money (tagged, never automated)
    eager: bool = False  # cheap and derived: kept up to date by the automation sensor
    group: str = ""  # the Dagster asset group (default: the suite's name)
    kinds: tuple[str, ...] = ()  # Dagster asset kinds shown in the UI (e.g. duckdb, sql)
    feeds: tuple[str, ...] = ()  # event types whose staging models read what this stage (or its upstream) recorded


@dataclass(frozen=True)
class Job:
    """A job of stages launched together (a partition's audit, a debate). `run_config` gives, for a partition,
    the run config its launchers use by default (the model's registered settings); `tags` its run tags."""

    name: str
    stages: tuple[str, ...]
    description: str
    partitioning: Partitioning = "model_run"
    run_config: Callable[[Home, str, int | None], dict[str, dict[str, Any]]] | None = None
    tags: Callable[[Home, str, int | None], dict[str, str]] | None = None


@dataclass(frozen=True)
class MartCheck:
    """A check on the suite's marts, computed from one read of the warehouse (`asset` is the mart it is shown on)."""

    name: str
    asset: str
    description: str
    check: Callable[[duckdb.DuckDBPyConnection], CheckOutcome]


class SectionRows(Protocol):
    def __call__(self, con: duckdb.DuckDBPyConnection) -> Sequence[BaseModel]: ...


@dataclass(frozen=True)
class Section:
    """One typed section of a suite's report: its rows read from the marts through one row class. Every
    renderer (table, md, json, html, publish) takes sections as they are."""

    name: str
    title: str
    row: type[BaseModel]
    rows: SectionRows
    note: str = ""  # a short note where a reader could misread the figures
    table: str = ""  # the table `lhl publish` writes (default: `<suite>_<section>`)
    figure: Callable[[Sequence[BaseModel]], str] | None = None  # an inline SVG of the rows, for the HTML report


@dataclass(frozen=True)
class CompareMetric:
    """A metric `lhl compare` pairs two models on, computed from a model's rows of the suite's `units` mart (one
    per run and unit: a contract, an item), each a mapping of column to value. The same function runs on both
    models' rows of the same bootstrap draw of shared units."""

    name: str
    value: Callable[[Sequence[Mapping[str, Any]]], float | None]

    @staticmethod
    def ratio(name: str, numerator: str, denominator: str) -> CompareMetric:
        """sum(numerator) / sum(denominator) over the rows; null with a zero denominator."""

        def value(rows: Sequence[Mapping[str, Any]]) -> float | None:
            den = sum(r[denominator] or 0 for r in rows)
            return sum(r[numerator] or 0 for r in rows) / den if den else None

        return CompareMetric(name, value)

    @staticmethod
    def mean(name: str, column: str) -> CompareMetric:
        """The mean of a per-unit value over the rows where it is defined; null where it never is."""

        def value(rows: Sequence[Mapping[str, Any]]) -> float | None:
            values = [r[column] for r in rows if r[column] is not None]
            return sum(values) / len(values) if values else None

        return CompareMetric(name, value)


@dataclass(frozen=True)
class Command:
    """A command the suite adds to `lhl` (`path`: the words, e.g. ("scrub", "build")). `define` adds its
    arguments; `handler` runs it and returns the exit code. `then_jobs`, when given, names the suite jobs to run
    through the one launch path once the handler succeeded, so the assets show at once what it recorded."""

    path: tuple[str, ...]
    help: str
    define: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace, Home], int]
    then_jobs: Callable[[argparse.Namespace, Home], Sequence[str]] | None = None


@dataclass(frozen=True)
class Agreement:
    """How `lhl judge agree A B --suite NAME` measures two judges on the responses both judged in the suite's
    scope: `measure` gives a typed result (printed as JSON with `--format json`), `text` renders it. `measure` gets
    the scope request the suite's reporting makes (`suites/reporting.py`), and `resamples=`, `seed=` when it
    `bootstraps` (its intervals)."""

    measure: Callable[..., BaseModel]
    text: Callable[[BaseModel], str]
    bootstraps: bool = False


RunConfig = Mapping[str, Mapping[str, Any]]  # stage -> field -> value: the run config the audit's flags set


@dataclass(frozen=True)
class FollowUp:
    """A partitioned job of the suite that `lhl demo` runs after every suite's demo partitions, on what they recorded
    (the clause suite's debate of a backbone it audited): `job` for each of `models`, once per model for a job
    partitioned by model, else per run the suite's demo audits, with `config` (stage -> field -> value) over the
    job's own run config; `prepare` first readies what the job reads (returns a line saying what it readied)."""

    job: str
    models: tuple[str, ...]
    config: RunConfig = field(default_factory=dict)
    prepare: Callable[[Home], str] | None = None


@dataclass(frozen=True)
class Demo:
    """What `lhl demo` audits on a suite, offline, through the audit path `lhl audit` takes: `models` (each with a
    line saying what it is), run 1 each (each run `lhl demo --runs` asks with `every_run`) through the suite's
    partition job; `prepare` first readies the items (returns a line saying what it readied); `then` names jobs of
    the catalog run once after its partitions (not partitioned); `follow_ups` the suite's partitioned jobs run, in
    order, once every suite's demo partitions are recorded. The demo prints the suite's report through its
    reporting: in full with `full_report`, else its leaderboard under `columns` (all when empty)."""

    models: tuple[tuple[ModelSpec, str], ...]
    prepare: Callable[[Home], str] | None = None
    columns: tuple[str, ...] = ()
    note: str = ""  # printed under the leaderboard
    every_run: bool = False
    then: tuple[str, ...] = ()
    follow_ups: tuple[FollowUp, ...] = ()
    full_report: bool = False


@dataclass(frozen=True)
class ItemsJob:
    """A job of items stages that must show the home's current items before a partition of the suite runs:
    `shows(home)` gives the metadata values the latest materialization of `stage` records when it shows them (None:
    the home holds no items yet, so there is nothing to record); `what` names them in the progress line."""

    job: str
    stage: str
    shows: Callable[[Home], Mapping[str, str] | None]
    what: str = "the items"


class AuditLines(Protocol):
    def __call__(self, home: Home, models: Sequence[str], runs: Sequence[int], config: RunConfig) -> list[str]: ...


class AuditCount(Protocol):
    def __call__(self, home: Home, models: Sequence[str], runs: Sequence[int], config: RunConfig) -> int: ...


@dataclass(frozen=True)
class AuditHooks:
    """What a suite's partition audit adds to running its partition job, each optional, for the one audit path of
    `lhl audit` and `lhl demo`. Each gets the models, the runs and the run config per stage the flags set (as
    `plan` does); the model's registered settings are its job's `run_config`. The re-judge mode needs no hook: a
    suite whose partition stages have a `rejudge` config field takes `--judge` without `--extract-missing` as
    re-judging what is recorded (the field set to true), and refuses `--extract-missing` otherwise.
    - `items`: an items job brought up to date before any partition runs;
    - `check`: the selection, checked before any call: raises ValueError or LookupError naming what does not fit,
      returns warnings (a line each, for stderr);
    - `estimate`: the suite's own dry-run lines (else the shared estimate of its `plan`);
    - `rejudging`: what a re-judging does per partition, printed before it runs;
    - `left`: the calls the audit still has to make, counted in a spending limit's stop line;
    - `judges_on_dissociation`: its judges are vetted on the dissociation suite (LexFlip's `lhl judge validate`),
      so a judge asked for that failed there, or was never run there, is named before the audit."""

    items: ItemsJob | None = None
    check: AuditLines | None = None
    estimate: AuditLines | None = None
    rejudging: AuditLines | None = None
    left: AuditCount | None = None
    judges_on_dissociation: bool = False


@dataclass(frozen=True)
class ItemSet:
    """A set of items with gold a suite can run on (a corpus, an injected set), as `lhl suites` lists it: `id` is
    what a report's scope names (`--item-set`), `name` what it was called (empty when it has none)."""

    id: str
    name: str
    items: int
    source: str
    self_built: bool


@dataclass(frozen=True)
class PlannedCall:
    """A call a suite's audit of one (model, run) would make, rendered as its stage renders it, for `lhl audit
    --dry-run`: the stage, the model that answers it (the model under test or a judge, as registered), the prompt text
    (every message, concatenated), the output cap the request sets (None: the model's own `max_output_tokens`).
    `assumed`: the prompt holds an answer not made yet (a judge of a response to come), so that part of the text is
    a stand-in of the answering model's `expected_output_tokens`."""

    stage: str
    model: ModelSpec
    text: str
    max_output_tokens: int | None = None
    assumed: bool = False


class CallPlan(Protocol):
    """The calls an audit of a (model, run) would make that its event log does not already hold, given the run config
    per stage the audit's launch gives (`config`: stage -> field -> value, the flags' overrides)."""

    def __call__(self, home: Home, model: str, run: int,
                 config: Mapping[str, Mapping[str, Any]]) -> Sequence[PlannedCall]: ...


@dataclass(frozen=True)
class Suite:
    """A suite as the platform runs it. `sql` is its folder of SQL models (`intermediate/`, `marts/`,
    `macros.sql`); `sections` its report; `scope` the mart whose rows state the report's scope; `compare` the
    metrics `lhl compare` pairs, from `units` (a mart with one row per model, run and unit); `agreement` how
    two of its judges are compared; `demo` what `lhl demo` audits on it offline; `plan` the calls an audit of a
    partition would make (its estimate). The audit's item filters (`--contracts`, `--subset`, `--item-set`) and
    `--judge` / `--batch` go to the partition job's stages whose config has a field of that name; a suite none of
    whose stages takes one refuses it."""

    name: str
    title: str
    description: str
    stages: tuple[Stage, ...] = ()
    jobs: tuple[Job, ...] = ()
    sql: Path | None = None
    sections: tuple[Section, ...] = ()
    checks: tuple[MartCheck, ...] = ()
    commands: Lazy[tuple[Command, ...]] = Lazy(())  # or a reference to them (their handlers load on use)
    item_sets: Callable[[Home], list[ItemSet]] = field(default=lambda home: [])
    compare: tuple[CompareMetric, ...] = ()
    units: str = ""
    cluster: str = ""  # a column of `units` whose rows are not independent: the paired bootstrap draws them together
    offline_models: Mapping[str, OfflineEntry] = field(default_factory=dict)
    scope: SuiteScope | None = None  # None: its marts are computed in the shared scope (the clause suite's)
    sources: tuple[SourceTable, ...] = ()  # the tables beside the events its SQL models read (`warehouse/sources.py`)
    agreement: Agreement | None = None  # `lhl judge agree A B --suite NAME`
    demo: Demo | None = None
    # the calls a partition's audit would make: `lhl audit --suite NAME --dry-run` (a reference: imported on use)
    plan: Lazy[CallPlan | None] = Lazy(None)
    audit: AuditHooks | None = None  # what its partition audit adds to running its partition job
    # how `lhl report`, `compare` and `publish` run on it (`suites/reporting.py`); None: the shared report of its
    # sections in its scope, or, with no scope of its own, a refusal naming where its results are
    reporting: Reporting | None = None
    # its headline figures as a series of audit rounds with change detection (`lhl monitor`, a trend section in its
    # report and the `no_change_detected` check on the mart: `lhl_platform.monitoring`, `report/monitor.py`)
    monitor: Monitor | None = None

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise LookupError(f"suite {self.name} has no stage {name!r}")
