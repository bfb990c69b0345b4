"""How a suite reports: the capability `lhl report`, `lhl compare` and `lhl publish` (and its `--strict`) run
through, so each of those commands is one path whatever the suite.

A suite declares it as `Suite.reporting`: the scope and report options it takes beyond the runs, models and judge
every suite takes (`options`), how those make its scope request, how it builds its report, renders it in every
format, compares two models, publishes, which checks `--strict` refuses on, and (where it takes `--schema`) the
JSON schema of its rows. The clause suite declares its own (`lhl_platform.clause.reporting`); a suite with a scope
of its own declares the shared report of its sections (`SectionReporting` in `report/reporting.py`, over
`report/suite_*.py`) with the rule its verdict ranks by, kept in its own package, so a new suite brings sections
and that rule, never renderers (declaring none, it gets that report with nothing ranked); a suite with neither
(LexFlip) is refused in one line naming where its results are.

An option a suite does not take is refused in one line naming the suite and the option, from `OPTIONS`. This
module is light: the report stacks load when a method runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from lhl_platform.home import Home
    from lhl_platform.suites.contract import Suite

FORMATS = ("table", "json", "csv", "md", "html")


@dataclass(frozen=True)
class Option:
    """A scope or report option some suites take: `name` is its field of `Asked` (the command line's dest),
    `instead` the options choosing the same thing in a suite without it."""

    name: str
    flag: str
    what: str
    instead: tuple[str, ...] = ()


OPTIONS: dict[str, Option] = {o.name: o for o in (
    Option("corpus", "--corpus", "chooses the clause suite's corpus", ("item_set",)),
    Option("subset", "--subset", "chooses a stored subset of the clause suite's contracts", ("item_set",)),
    Option("item_set", "--item-set", "chooses a suite's item set", ("corpus", "subset")),
    Option("gold_version", "--gold-version", "chooses a version of a suite's reviewed gold (`lhl review`)"),
    Option("scheme", "--scheme", "chooses the clause suite's composite scheme; every other suite's verdict ranks by "
           "its headline metric (docs/method.md, section 17)"),
    Option("cluster", "--bootstrap contract", "resamples the clause suite's contracts for its RDI intervals"),
    Option("rows_schema", "--schema", "prints the JSON schema of the clause report's rows (every other suite's rows "
           "are typed in its JSON report)"),
)}


class Asked(BaseModel):
    """What a command line asks of a suite's report: one request type for every suite. The options in `OPTIONS`
    are None unless given; a suite refuses one it does not take (`refuse_options`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runs: tuple[int, ...] | None = None
    models: tuple[str, ...] | None = None
    judge: str | None = None
    corpus: str | None = None
    subset: str | None = None
    item_set: str | None = None
    gold_version: int | None = None
    scheme: str | None = None
    resamples: int = 2000
    seed: int = 0
    cluster: bool | None = None  # True: intervals resample contracts (`--bootstrap contract`); None: instances
    rows_schema: bool | None = None  # True: the rows' JSON schema, not the report (`lhl report --schema`)


class Published(Protocol):
    """What a publication wrote: where (the URL masked), the scope's key, rows per table, rows it replaced."""

    url: str
    scope_key: str
    rows: dict[str, int]
    replaced: int


class Reporting(Protocol):
    """A suite's report, comparison and publication. `request` turns what was asked into the warehouse's scope
    request; `build` reads the report in that scope (`fmt`: the format it is built for, None to publish);
    `failing` names the checks that fail in it (`--strict` refuses on them); `rows_schema` is the JSON schema of
    its rows (`lhl report --schema`), for a reporting whose options take `rows_schema` (others refuse it)."""

    @property
    def options(self) -> frozenset[str]: ...

    def sections(self, suite: Suite) -> frozenset[str]: ...  # the names of the sections its report holds

    def request(self, suite: Suite, asked: Asked) -> Any: ...

    def build(self, home: Home, suite: Suite, request: Any, asked: Asked, fmt: str | None = None) -> Any: ...

    def render(self, built: Any, suite: Suite, fmt: str) -> str: ...

    def failing(self, built: Any) -> list[tuple[str, str]]: ...

    def compare(self, home: Home, suite: Suite, a: str, b: str, request: Any, asked: Asked, *, force: bool,
                fmt: str) -> str: ...

    def publish(self, built: Any, suite: Suite, url: Any) -> Published: ...

    def rows_schema(self, suite: Suite) -> dict[str, Any]: ...


def refusal(suite: str, option: Option, taken: frozenset[str]) -> str:
    instead = [OPTIONS[o].flag for o in option.instead if o in taken]
    return (f"suite {suite} does not take {option.flag}: {option.flag} {option.what}"
            + (f"; suite {suite} takes {', '.join(instead)}" if instead else ""))


def refuse_options(suite: Suite, taken: frozenset[str], asked: Asked) -> None:
    """One line naming the suite and the first option given that it does not take."""
    for name, option in OPTIONS.items():
        if getattr(asked, name) is not None and name not in taken:
            raise ValueError(refusal(suite.name, option, taken))
