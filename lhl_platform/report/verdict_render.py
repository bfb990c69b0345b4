"""The verdict as the first section of every report: text or Markdown lines, and an HTML section (the JSON is the
Verdict itself, under a top-level `verdict` key)."""

from __future__ import annotations

from html import escape

from lhl_platform.domain.text import markdown_text, printable
from lhl_platform.report.labels import FEW_CASES
from lhl_platform.report.verdict import Figure, Verdict, none_found

TITLE = "Verdict"


def _figure(f: Figure) -> str:
    if f.value is None:
        return f"{f.label} unmeasured"
    shown = f"{100 * f.value:.1f}%" if f.percent else f"{f.value:.3f}"
    if f.ci_low is not None and f.ci_low == f.ci_high:  # no spread: never printed as a point interval
        few = f.cases is not None and f.cases < FEW_CASES
        return f"{f.label} {shown} " + (f"(n={f.cases}, too few for an interval)" if few else
                                        "(the same in every resample)")
    if f.ci_low is not None and f.ci_high is not None:
        low, high = (100 * f.ci_low, 100 * f.ci_high) if f.percent else (f.ci_low, f.ci_high)
        shown += f" [{low:.1f}, {high:.1f}]" if f.percent else f" [{low:.3f}, {high:.3f}]"
    return f"{f.label} {shown}" + ("" if f.cases is None else f" (n={f.cases})")


def stability_line(v: Verdict) -> str | None:
    """How firmly the first system holds first place, or None when there is no single first system."""
    if len(v.best) != 1 or len(v.ranking) < 2:
        return None
    if v.scheme is not None:
        if v.stability is None:
            return "rank stability: not computed (no resamples of the matched cells)"
        return (f"keeps first place in {100 * v.stability:.0f}% of {v.resamples} contract-cluster resamples of the "
                "matched cells")
    if v.separated is None:
        return "first and second are not compared by intervals (an interval is null)"
    return ("its 95% interval lies wholly above the runner-up's" if v.separated
            else "its 95% interval overlaps the runner-up's: not firmly separated")


def verdict_lines(v: Verdict) -> list[str]:
    """The verdict's lines, plain (the caller marks them up as a list)."""
    lines = [f"answer:    {v.statement}", f"ranked by: {v.basis} (docs/method.md, section 17)"]
    if v.figures:
        lines.append(f"on:        {'; '.join(_figure(f) for f in v.figures)}")
    stable = stability_line(v)
    if stable:
        lines.append(f"stability: {stable}")
    lines += [f"trade-off: {t.statement}" for t in v.trade_offs]
    nothing = none_found(v)
    if nothing:
        lines.append(f"trade-off: {nothing}")
    lines += [f"caveat:    {c.statement}" for c in v.caveats]
    return lines


def render_verdict_text(v: Verdict, markdown: bool = False) -> list[str]:
    """The section as lines, heading included, ending with a blank line."""
    heading = f"## {TITLE}" if markdown else f"{TITLE}\n{'=' * len(TITLE)}"
    inert = markdown_text if markdown else printable  # system names come from outside
    return [heading, *(f"{'- ' if markdown else ''}{inert(line)}" for line in verdict_lines(v)), ""]


def render_verdict_html(v: Verdict) -> str:
    """The section for the top of the HTML page: the answer in large type, then stability, trade-offs, caveats."""
    best = escape(",".join(v.best), quote=True)
    parts = [f'<p class="lede" data-best="{best}" style="font-size:17px;color:var(--ink)"><b>{escape(v.statement)}'
             "</b></p>"]
    if v.figures:
        parts.append(f"<p>On {escape('; '.join(_figure(f) for f in v.figures))}.</p>")
    stable = stability_line(v)
    if stable:
        parts.append(f'<p data-verdict="stability">Stability: {escape(stable)}.</p>')
    for t in v.trade_offs:
        parts.append(f'<div class="note warn" data-verdict="trade-off" data-metric="{escape(t.metric, quote=True)}">'
                     f"<b>Trade-off.</b> {escape(t.statement)}</div>")
    nothing = none_found(v)
    if nothing:
        parts.append(f'<p data-verdict="trade-off" data-metric="none">Trade-off: {escape(nothing)}.</p>')
    if v.caveats:
        parts.append('<ul data-verdict="caveats">' + "".join(
            f'<li data-caveat="{escape(c.kind, quote=True)}">{escape(c.statement)}</li>' for c in v.caveats)
            + "</ul>")
    parts.append(f'<p class="lede">Ranked by {escape(v.basis)}; the rule is docs/method.md, section 17.</p>')
    return f'<section id="verdict"><h2>{TITLE}</h2>' + "".join(parts) + "</section>"


VERDICT_CSV_COLUMNS = ("part", "statement")


def verdict_csv_rows(v: Verdict) -> list[dict[str, str]]:
    """The verdict as the CSV's first rows (`table` = verdict): one per line of the section, `part` naming it
    (answer, basis, figures, stability, trade-off, caveat) and `model` the system it is about, where one is."""
    rows = [{"part": "answer", "model": ",".join(v.best), "statement": v.statement},
            {"part": "basis", "model": "", "statement": f"{v.basis} (docs/method.md, section 17)"}]
    if v.figures:
        rows.append({"part": "figures", "model": ",".join(v.best),
                     "statement": "; ".join(_figure(f) for f in v.figures)})
    stable = stability_line(v)
    if stable:
        rows.append({"part": "stability", "model": ",".join(v.best), "statement": stable})
    rows += [{"part": "trade-off", "model": t.model, "statement": t.statement} for t in v.trade_offs]
    nothing = none_found(v)
    if nothing:
        rows.append({"part": "trade-off", "model": ",".join(v.best), "statement": nothing})
    rows += [{"part": "caveat", "model": ",".join(c.subjects), "statement": c.statement} for c in v.caveats]
    return [{"table": "verdict", **row} for row in rows]

