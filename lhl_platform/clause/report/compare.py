"""`lhl compare A B`: two models on the same instances, with a paired contract-cluster interval per metric.

The comparison is paired on the (contract, run) cells both models were audited on within the scope (a run one
of them lacks, or a contract only one covers, is left out). Each metric is computed for both on those cells,
`diff` is a - b, and its 95% interval comes from resampling the shared contracts with replacement: every
resample draws the contracts once and recomputes both models on the same draw, so contract-to-contract
variation that affects both alike cancels out of the difference. An interval that excludes 0 separates the two
models on that metric beyond contract sampling noise.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from lhl_platform.clause.report.render import JUDGE_MARKS
from lhl_platform.clause.report.resampling import CountCube, paired_differences, unlabelled
from lhl_platform.domain.text import markdown_text, printable
from lhl_platform.home import Home
from lhl_platform.stats.bootstrap import DEFAULT_RESAMPLES
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import Scope, ScopeRequest, check_names, resolved_scope


class PairedScope(Scope):
    paired_contracts: int = Field(description="contracts with at least one (contract, run) cell both models have")
    paired_cells: int = Field(description="(contract, run) cells both models were audited on")


class ComparedMetric(BaseModel):
    metric: str
    a: float | None
    b: float | None
    diff: float | None = Field(description="a - b on the paired cells")
    ci_low: float | None = Field(description="2.5th percentile of the paired contract-cluster bootstrap of diff")
    ci_high: float | None = Field(description="97.5th percentile of the paired contract-cluster bootstrap of diff")


class Comparison(BaseModel):
    a: str
    b: str
    scope: PairedScope
    metrics: list[ComparedMetric]
    judge_validated: bool | None = Field(default=None, description="the scope's judge passed (true) or failed "
                                         "(false) held-out validation; null: no held-out result")


class NothingToCompare(LookupError):
    pass


class UnfitJudge(LookupError):
    """The scope's judge failed its validation: its content figures are not compared unless asked to."""


CONTENT_METRICS = ("hal_tp", "hal_gen", "jeq", "rdi")  # the figures that rest on the judge's verdicts


def compare_models(home: Home, a: str, b: str, request: ScopeRequest | None = None, *,
                   resamples: int = DEFAULT_RESAMPLES, seed: int = 0, force: bool = False) -> Comparison:
    if a == b:
        raise ValueError(f"compare needs two different models, got {a!r} twice")
    base = request or ScopeRequest()
    with read_warehouse(home, base.model_copy(update={"models": (a, b)})) as con:
        check_names(con)  # an unknown model or judge is an error naming it
        scope = resolved_scope(con)
        validated = con.execute("select passed from judge_validations where judge = ?", [scope.judge]).fetchone()
        judge_ok = None if validated is None or validated[0] is None else bool(validated[0])
        if judge_ok is False and not force:  # before the bootstrap: a difference of such verdicts separates nothing
            raise UnfitJudge(f"judge {scope.judge} failed held-out validation on corpus "
                             f"{scope.corpus_name or scope.corpus_id}: its HalTP, HalGen, JEq and RDI are not "
                             "compared; validate another judge and give `--judge NAME`, or give --force")
        cube = CountCube.read(con)
        absent = [m for m in (a, b) if m not in cube.models]
        if absent:
            raise NothingToCompare(f"no outcomes of {' or '.join(absent)} in scope (corpus "
                                   f"{scope.corpus_name or 'none'}, runs {scope.runs or 'any'}); see `lhl models list`")
        rows, contracts, cells = paired_differences(cube, a, b, resamples=resamples, seed=seed)
        if cells:
            unjudged = unlabelled(cube, a, b)
            if unjudged:
                raise NothingToCompare(
                    f"judge {scope.judge} labelled none of the true positives of {' and '.join(unjudged)} on the "
                    f"paired cells: HalTP, HalGen and JEq would compare nothing; judge them first (`lhl audit "
                    f"--models {','.join(unjudged)} --judge {scope.judge}`) or choose another `--judge`")
    if cells == 0:
        raise NothingToCompare(f"{a} and {b} share no (contract, run) cell in scope: nothing to pair")
    return Comparison(a=a, b=b, scope=PairedScope(**scope.model_dump(), paired_contracts=contracts,
                                                  paired_cells=cells),
                      metrics=[ComparedMetric(metric=r.metric, a=r.a, b=r.b, diff=r.diff, ci_low=r.ci_low,
                                              ci_high=r.ci_high) for r in rows], judge_validated=judge_ok)


def render_comparison_json(c: Comparison) -> str:
    return json.dumps(c.model_dump(mode="json"), indent=2)


def _fmt(metric: str, value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    if metric == "rdi":
        return f"{value:+.3f}"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def render_comparison_table(c: Comparison, markdown: bool = False) -> str:
    """Rates in % (differences in percentage points), RDI as a signed number."""
    inert = markdown_text if markdown else printable  # model and corpus names come from outside
    headers = ["metric", inert(c.a), inert(c.b), "diff (a - b)", "95% CI", "separated"]
    mark = JUDGE_MARKS[c.judge_validated]
    rows = []
    for m in c.metrics:
        separated = ("-" if m.ci_low is None or m.ci_high is None
                     else "yes" if m.ci_low > 0 or m.ci_high < 0 else "no")
        name = f"{m.metric} {mark}" if mark and m.metric in CONTENT_METRICS else m.metric
        rows.append([name, _fmt(m.metric, m.a), _fmt(m.metric, m.b), _fmt(m.metric, m.diff, True),
                     f"[{_fmt(m.metric, m.ci_low, True)}, {_fmt(m.metric, m.ci_high, True)}]", separated])
    sc = c.scope
    head = (f"{headers[1]} vs {headers[2]}: paired on {sc.paired_cells} (contract, run) cells over "
            f"{sc.paired_contracts} contracts of {inert(str(sc.corpus_name))} (runs {', '.join(map(str, sc.runs))}, "
            f"judge {inert(sc.judge)}" + (f", subset {inert(sc.subset)}" if sc.subset else "")
            + "); rates in %, differences in points")
    if markdown:
        lines = [head, "", "| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
        lines = [head, "", fmt.format(*headers), fmt.format(*("-" * w for w in widths))]
        lines += [fmt.format(*r) for r in rows]
    lines += ["", "separated: the 95% paired contract-cluster interval of the difference excludes 0."]
    if mark:
        what = ("FAILED held-out validation (compared because of --force)"
                if c.judge_validated is False else "has not been validated on held-out evidence for this corpus")
        lines.append(f"{mark} judge {inert(sc.judge)} {what}: {', '.join(CONTENT_METRICS)} rest on its verdicts "
                     f"(`lhl judge validate --judge {inert(sc.judge)}`).")
    return "\n".join(lines) + "\n"
