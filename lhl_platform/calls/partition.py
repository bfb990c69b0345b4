"""Run a single-call stage over one partition: its stream's writer (committing by the stage's policy), the ledger
of its recorded calls, interactively or through the provider's batch API, with progress; the model is closed at
the end. Every one-call-per-unit stage of every suite runs this way."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from lhl_platform.calls.batch import BatchRun
from lhl_platform.calls.ledger import CallLedger, recorded_calls
from lhl_platform.calls.policy import stage_writer
from lhl_platform.calls.single import SingleCallStage, StageRun
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import ChatModel, close_model

U = TypeVar("U")
P = TypeVar("P")


async def run_partition(log: EventLog, stream: str, stage: SingleCallStage[U, P], model: ChatModel,
                        units: Sequence[U], *, model_name: str, run: int, owner: str, tally: CallTally,
                        concurrency: int = 4, batch: bool = False, progress: Progress | None = None,
                        status: Callable[[str], None] | None = None, poll: tuple[float, float] | None = None,
                        opening: Callable[[StreamWriter], None] | None = None) -> CallLedger:
    """Answer every unit of `units` (see `single.py`); `opening` records what the partition covers first. Returns
    the ledger (its `reused` calls were answered from the record); calls made now are counted into `tally`."""
    durable = model.provider != "offline"
    done = 0

    def tick(*_: int) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(tally.tick(done, len(units)))

    try:
        with stage_writer(log, stream, stage.policy, durable=durable or batch) as writer:
            if opening is not None:
                opening(writer)
            ledger = CallLedger(model_name, recorded_calls(log, stream), writer.append, fresh=tally)
            partition = StageRun(stage, writer, ledger, model)
            if batch:
                await BatchRun(partition, log, stream, owner=owner, model_name=model_name, run_no=run,
                               status=status or (lambda text: None), poll=poll,
                               tick=tick).execute(units, concurrency=concurrency)
            else:
                await partition.run(units, concurrency=concurrency, durable=durable, progress=tick)
            return ledger
    finally:
        await close_model(model)
