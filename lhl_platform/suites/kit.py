"""What every suite's stages share: the run config base and its common fields (the item set, the batch switch
with its one environment fallback), the partition accessor, the partition job's run tags and the check that
every unit of a partition was answered.

A suite's stage module declares its configs on `StageConfig` (or `ItemSetConfig` / `BatchConfig`), its call stages
on `PartitionCalls` (`ItemSetCalls` for the units of one item set, keyed by `unit_key`), reads its partition with
`model_run(ctx)` and its config with `config_of(ctx, Cls)`, and reports completeness with `every_unit_answered`;
its partition job's tags are `partition_tags(NAME)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field

from lhl_platform.domain.models import Frozen
from lhl_platform.quality.checks import CheckOutcome

if TYPE_CHECKING:
    from lhl_platform.events.log import StreamWriter
    from lhl_platform.home import Home
    from lhl_platform.providers.base import ChatModel
    from lhl_platform.suites.contract import StageContext

C = TypeVar("C", bound=BaseModel)
U = TypeVar("U")


class StageConfig(Frozen):
    """The base of a stage's run config: frozen, and an unknown field is an error naming it."""


class ItemSetConfig(StageConfig):
    item_set: str | None = Field(default=None, description="the item set (its id, or its name where it has one); "
                                                           "default: the active one")


class BatchConfig(StageConfig):
    batch: bool | None = Field(default=None, description="send an LLM's requests through its provider's batch API "
                                                         "(batch prices, answered within hours); default: "
                                                         "LHL_AUDIT_BATCH")

    def batched(self) -> bool:
        """The batch switch, or where it is not set, the environment's (`lhl audit --batch` sets it for the runs
        it executes), the same for every suite."""
        if self.batch is not None:
            return self.batch
        from lhl_platform.calls.batch_switch import batch_requested  # the one reading of LHL_AUDIT_BATCH

        return batch_requested()


@dataclass
class PartitionCalls(ABC, Generic[U]):
    """The start of a (model, run) partition's single-call stage (`lhl_platform.calls.single.SingleCallStage`): the
    model under test, the run, the chat model answering; a unit whose key the stream already holds is skipped (its
    answer is recorded). A suite's stage adds its fields, `key` and the rest."""

    model: str
    run: int
    chat: ChatModel

    @abstractmethod
    def key(self, unit: U) -> str:
        """The unit's idempotency key in the partition's stream (each suite names its own units)."""

    def skip(self, writer: StreamWriter, unit: U) -> bool:
        return writer.has(self.key(unit))


def unit_key(kind: str, item_set: str, model: str, run: int, *ids: str) -> str:
    """A unit's idempotency key: `<kind>:<item set>:<model>:<run>:<the unit's ids>`, `kind` the suite's name for its
    calls (`scrub.findings`, say)."""
    return ":".join((kind, item_set, model, str(run), *ids))


@dataclass
class ItemSetCalls(PartitionCalls[U]):
    """A partition's calls over the units of one item set, each keyed by `unit_key` with the stage's `kind`; a
    suite's stage names its units (`ids`)."""

    item_set: str
    kind: ClassVar[str]

    def key(self, unit: U) -> str:
        return unit_key(self.kind, self.item_set, self.model, self.run, *self.ids(unit))

    @abstractmethod
    def ids(self, unit: U) -> tuple[str, ...]:
        """What names the unit within its item set (an item; a contract and a category)."""


def config_of(ctx: StageContext, cls: type[C]) -> C:
    """The stage's validated run config, as the class the stage declared."""
    config = ctx.config
    assert isinstance(config, cls), f"a {cls.__name__} stage got a {type(config).__name__}"
    return config


def model_run(ctx: StageContext) -> tuple[str, int]:
    """The (model, run) partition a stage runs on."""
    assert ctx.model is not None and ctx.run is not None, "a (model, run) stage runs on a partition"
    return ctx.model, ctx.run


def partition_tags(suite: str) -> Callable[[Home, str, int | None], dict[str, str]]:
    """The run tags of a suite's partition job: the model, its provider, the run and the suite."""

    def tags(home: Home, model: str, run: int | None) -> dict[str, str]:
        from lhl_platform.registry import get_model

        found = {"lhl/provider": get_model(home, model).provider, "lhl/model": model, "lhl/suite": suite}
        return found if run is None else {**found, "lhl/run": str(run)}

    return tags


def every_unit_answered(name: str, description: str, expected: int, answered: int, *, units: str,
                        answered_as: str = "answered", missing_as: str = "without an answer",
                        failures: Sequence[tuple[str, str]] = (), reason_chars: int | None = None,
                        metadata: dict[str, Any] | None = None) -> CheckOutcome:
    """The check that every unit of a partition has an answer: passed when `answered` reaches `expected`, else
    a summary counting the missing `units` and naming the first five failures (each reason cut to
    `reason_chars`)."""
    missing = expected - answered
    summary = (f"all {expected} {units} {answered_as}" if missing == 0 else
               f"{missing} of {expected} {units} {missing_as}: "
               + "; ".join(f"{unit} ({why[:reason_chars]})" for unit, why in failures[:5]))
    return CheckOutcome(name=name, passed=missing == 0, description=description, summary=summary,
                        metadata=metadata if metadata is not None else {"expected": expected, "answered": answered})
