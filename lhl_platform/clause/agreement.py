"""`lhl judge agree A B` on the clause suite: Cohen's kappa of two judges on the true positives in scope both
labelled, and each model's RDI shift with a paired interval (`lhl_platform.judges`), and its text."""

from __future__ import annotations

from pydantic import Field

from lhl_platform.home import Home
from lhl_platform.judging.agreement import AgreementResult
from lhl_platform.warehouse.scope import ScopeRequest


class ClauseAgreement(AgreementResult):
    """The result with the two judges it names (for its text; its JSON is the result's)."""

    judge_a: str = Field(exclude=True)
    judge_b: str = Field(exclude=True)


def measure(home: Home, a: str, b: str, request: ScopeRequest, *, resamples: int = 2000,
            seed: int = 0) -> ClauseAgreement:
    from lhl_platform.judges import judge_agreement

    result = judge_agreement(home, a, b, request, resamples=resamples, seed=seed)
    return ClauseAgreement(**dict(result), judge_a=a, judge_b=b)


def text(result: ClauseAgreement) -> str:
    def num(value: float | None, fmt: str = "+.3f") -> str:
        return "-" if value is None else format(value, fmt)

    lines = [f"{result.judge_a} vs {result.judge_b}: {result.n} true positives labelled by both "
             f"({result.excluded} left out)",
             f"  binary agreement {num(result.agreement_binary, '.3f')}, kappa {num(result.kappa_binary, '.3f')}",
             f"  direction (among {result.n_direction} both called contradicted): agreement "
             f"{num(result.agreement_direction, '.3f')}, kappa {num(result.kappa_direction, '.3f')}"]
    lines += [f"  {m.model:<20} RDI {num(m.rdi_a)} -> {num(m.rdi_b)}  shift {num(m.rdi_shift)} "
              f"[{num(m.rdi_shift_ci_low)}, {num(m.rdi_shift_ci_high)}]" for m in result.models]
    return "\n".join(lines)
