"""`--max-cost USD` for the commands that spend (`lhl audit` of every suite, `lhl debate`): the command's spending
limit (`lhl_platform.calls.budget`), the refusal of a model of unknown cost, and the stop in one line with its own
exit code."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from lhl_platform.home import Home
from orchestration.cli.app import CliError

if TYPE_CHECKING:
    from lhl_platform.calls.budget import SpendLimit


def add_max_cost(parser: argparse.ArgumentParser, what: str) -> None:
    from lhl_platform.calls.exit_codes import LIMIT_EXIT_CODE

    parser.add_argument("--max-cost", type=float, metavar="USD",
                        help=f"spending limit of {what} in USD, never passed whatever the concurrency (each call "
                             "reserves its worst case first); stopped by it, the command says so and exits with "
                             f"code {LIMIT_EXIT_CODE}, and running it again resumes without repeating a call")


def max_cost(args: argparse.Namespace) -> float | None:
    value: float | None = getattr(args, "max_cost", None)
    if value is not None and not value > 0:
        raise CliError(f"--max-cost must be a positive amount of USD, not {value:g}")
    if value is not None and getattr(args, "queue", False):
        raise CliError("--max-cost limits the runs made here; queued runs honour each model's registered limit "
                       "(params.audit.max_cost_usd)")
    return value


def refuse_unknown_cost(home: Home, names: Iterable[str], limited: bool) -> None:
    """Under a limit, a model neither the price table nor its registration prices is refused before any work."""
    from lhl_platform.providers.prices import pricing_for
    from lhl_platform.registry import get_model

    if not limited:
        return
    for name in dict.fromkeys(names):
        pricing = pricing_for(get_model(home, name))
        if not pricing.known:
            raise CliError(f"a spending limit refuses {name}, whose cost is {pricing.describe()}; register its rates "
                           f"(`lhl models add {name} ... --input-price P --output-price P`, after `lhl models "
                           "remove`)")


def registered_limits(home: Home, models: Iterable[str]) -> bool:
    """Whether any of these models has a registered spending limit per audit round."""
    from lhl_platform.registry import get_model

    return any(get_model(home, m).params.audit.max_cost_usd is not None for m in models)


@contextlib.contextmanager
def command_limit(limit_usd: float | None, scope: str) -> Iterator[SpendLimit | None]:
    from lhl_platform.calls.budget import new_command, spending_limit

    new_command()
    with spending_limit(limit_usd, scope=scope) as limit:
        yield limit


def stop_code(home: Home, left: Callable[[], int] | None = None) -> int | None:
    """When a spending limit stopped what this process ran: the stop recorded as an event, the one line on stderr
    (`left()`: the calls the command has left, when it can count them), and the limit's exit code; else None."""
    from lhl_platform.calls.budget import LIMIT_EXIT_CODE, stopped_limit

    limit = stopped_limit()
    if limit is None:
        return None
    remaining = left() if left is not None else None
    limit.record(home.events, remaining)
    print(f"lhl: {limit.line(remaining)}", file=sys.stderr)
    return LIMIT_EXIT_CODE


def limited(home: Home, limit_usd: float | None, scope: str, work: Callable[[], object],
            left: Callable[[], int] | None = None) -> int | None:
    """Run `work` under the command's limit (None: only the models' registered limits apply); when a limit stopped
    it, the stop's one line and exit code (`stop_code`), else None."""
    with command_limit(limit_usd, scope):
        try:
            work()
        except Exception:
            code = stop_code(home, left)
            if code is None:
                raise
            return code
    return stop_code(home, left)


def scope_of(command: str, models: Iterable[str], runs: Iterable[int]) -> str:
    return f"lhl {command} {','.join(models)} run(s) {','.join(map(str, runs))}"
