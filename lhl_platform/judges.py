"""How far two judges agree on the true positives both labelled (`lhl judge agree`, the `judge_agreement` stage).
Validating a judge is the LexFlip suite's work (`lhl_platform.lexflip.validate`)."""

from __future__ import annotations

from lhl_platform.home import Home
from lhl_platform.judging.agreement import AgreementResult, AgreementRow, agreement
from lhl_platform.registry import get_judge
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest, check_names


def judge_agreement(home: Home, a: str, b: str, request: ScopeRequest | None = None, *,
                    resamples: int = 2000, seed: int = 0) -> AgreementResult:
    """Agreement of judges A and B on the true positives in scope that both labelled."""
    for name in (a, b):
        get_judge(home, name)  # an unknown judge is an error naming it and the registered ones
    scope = (request or ScopeRequest()).model_copy(update={"judge": a})
    with read_warehouse(home, scope) as con:
        check_names(con)
        cursor = con.execute("""select model, run, contract_id, clause_type, verdict_a, mismatch_a, verdict_b,
                                       mismatch_b
                                from judge_pair_verdicts where judge_b = ?""", [b])
        names = [d[0] for d in cursor.description]
        rows = [AgreementRow(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]
    if not rows:
        raise LookupError(f"no true positive in scope was labelled by both {a!r} and {b!r}; "
                          f"judge one with the other first (`lhl audit --models M --judge {b}`)")
    return agreement(rows, resamples=resamples, seed=seed)
