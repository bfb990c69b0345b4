"""A stage that makes one call per unit: extraction per contract, a verdict per true positive, a suite item per
call. The stage says what a unit asks and what its answer means; the engine does the rest, interactively here
or through a provider's batch API (`batch.py`), with the same requests, records and resume rules.

Per unit: skipped when the stage says it is finished; otherwise its request is answered from the stream's
recorded calls or by calling the model (`ledger.py`); an answer the stage can use is recorded as `model.call`
and then by the stage (`record`), anything else as `model.call_failed` and then by the stage (`reject`), so a
failure is an event with its reason and never fails the partition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from lhl_platform.calls.ledger import Answer, CallLedger, Who
from lhl_platform.calls.loop import run_units
from lhl_platform.calls.policy import CommitPolicy
from lhl_platform.events.log import StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.providers.base import ChatModel, ModelRequest

U = TypeVar("U")
P = TypeVar("P")
U_in = TypeVar("U_in", contravariant=True)


class SingleCallStage(Protocol[U_in, P]):
    """What a one-call-per-unit stage knows; `P` is what its parse makes of an answer."""

    name: str  # the stage's name in call records (extraction, judge, ...)
    policy: CommitPolicy

    def skip(self, writer: StreamWriter, unit: U_in) -> bool:
        """True when the unit needs no call now: it is finished (or the stage settled it without a call)."""
        ...

    def request(self, unit: U_in) -> ModelRequest: ...

    def who(self, unit: U_in) -> Who: ...

    def parse(self, unit: U_in, call: ModelCall, validated: bool) -> P:
        """What the answer means, or `Unusable`; records nothing."""
        ...

    def record(self, writer: StreamWriter, unit: U_in, call: ModelCall, parsed: P) -> None:
        """Record a usable answer (after its `model.call`)."""
        ...

    def reject(self, writer: StreamWriter, unit: U_in, answer: Answer[P], stage: str) -> None:
        """Record why the unit has no usable answer (`stage`: call, parse or batch)."""
        ...


@dataclass
class StageRun(Generic[U, P]):
    """One partition of a single-call stage: its writer, the ledger of its stream, the model that answers."""

    stage: SingleCallStage[U, P]
    writer: StreamWriter
    ledger: CallLedger
    model: ChatModel

    async def answer(self, unit: U) -> None:
        """Ask for one unit and record what came back."""
        stage = self.stage
        answer = await self.ledger.ask(self.model, stage.request(unit), stage.who(unit),
                                       lambda call, validated: stage.parse(unit, call, validated))
        self.settled(unit, answer)

    def settled(self, unit: U, answer: Answer[P]) -> None:
        if answer.failed is None:
            self.stage.record(self.writer, unit, answer.call, answer.output)  # type: ignore[arg-type]
        else:
            self.stage.reject(self.writer, unit, answer, answer.failed)

    async def run(self, units: Sequence[U], *, concurrency: int, durable: bool,
                  progress: Callable[[int, int], None] | None = None) -> None:
        await run_units(self.writer, units, self.answer, skip=lambda u: self.stage.skip(self.writer, u),
                        concurrency=concurrency, window=self.stage.policy.window if durable else None,
                        progress=progress)
