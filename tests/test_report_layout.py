"""The demo's reports read as pages, not table dumps: human column labels, rates in percent, tables within a 1,280 px
page (measured in headless Chromium), the verdict above the fold, small-sample warnings, captions from the data."""

from __future__ import annotations

import html as html_lib
import json
import re
import subprocess
from pathlib import Path

import pytest

from lhl_platform.clause.report.build import build_report
from lhl_platform.clause.report.html import render_html
from lhl_platform.clause.report.render import debate_caption, render_text
from lhl_platform.clause.report.rows import DebateEffectRow
from lhl_platform.home import Home
from lhl_platform.report.labels import FEW_MARK
from lhl_platform.report.layout import html_tables, text_tables, view
from lhl_platform.report.reporting import reporting_of
from lhl_platform.report.suite_report import build_suite_report
from lhl_platform.suites import get_suite

CHROMIUM = Path("/usr/bin/chromium")
WIDTH, FOLD = 1280, 800
SUITES = ("contractscrub", "insufficiency")
SNAKE = re.compile(r"[a-z]+_[a-z_]+")

# Written into a copy of the page: every table's and figure's box (details opened, as a reader would) and the
# page's scroll width, as JSON in a <pre> that `--dump-dom` prints.
MEASURE = """<script>
window.addEventListener('load', () => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const style = getComputedStyle(document.body), box = document.body.getBoundingClientRect();
  const out = {scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
               left: box.left + parseFloat(style.paddingLeft), right: box.right - parseFloat(style.paddingRight),
               boxes: [], verdict: null};
  document.querySelectorAll('table, figure, svg').forEach(t => {
    const r = t.getBoundingClientRect();
    out.boxes.push({tag: t.tagName, name: t.getAttribute('data-table') || t.getAttribute('data-figure') || '',
                    width: r.width, left: r.left, right: r.right});
  });
  const verdict = document.getElementById('verdict');
  if (verdict) out.verdict = verdict.getBoundingClientRect().top;
  const bottom = sel => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().bottom : null; };
  out.first = {nature: bottom('[data-caveat="not_a_real_model"]'), trade: bottom('[data-verdict="trade-off"]'),
               caveats: bottom('[data-verdict="caveats"]')};
  const pre = document.createElement('pre');
  pre.id = 'lhl-measure';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def pages(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The demo's clause, ContractScrub and InsufficiencyBench reports as HTML and Markdown, rendered once."""
    home = Home.resolve(demo_home)
    report = build_report(home, resamples=200)
    out = {"clause": {"html": render_html(report, []), "md": render_text(report, [], markdown=True)}}
    for name in SUITES:
        suite = get_suite(name)
        reporting = reporting_of(suite)
        built = build_suite_report(home, suite)
        out[name] = {"html": reporting.render(built, suite, "html"), "md": reporting.render(built, suite, "md")}
    from lhl_platform.report.monitor import read_monitor_report
    from lhl_platform.report.monitor_render import render_html as monitor_html

    for name in ("clause", *SUITES):  # `lhl monitor --format html`: the trend page alone
        suite = get_suite(name)
        assert suite.monitor is not None
        out[f"monitor-{name}"] = {"html": monitor_html(read_monitor_report(home, suite), suite.monitor)}
    folder = tmp_path_factory.mktemp("layout")
    for name, page in out.items():
        (folder / f"{name}.html").write_text(page["html"], encoding="utf-8")
        page["path"] = str(folder / f"{name}.html")
    return out


def _md_headers(md: str) -> list[str]:
    lines = md.splitlines()
    return [c.strip().replace("\\_", "_") for i, line in enumerate(lines[:-1])
            if line.startswith("|") and lines[i + 1].startswith("|---") for c in line.strip().strip("|").split("|")]


def _html_headers(page: str) -> list[str]:
    return [html_lib.unescape(re.sub(r"<[^>]+>", "", h)).strip()
            for h in re.findall(r"<th[^>]*>(.*?)</th>", page, re.S)]


@pytest.mark.parametrize("name", ["clause", *SUITES])
def test_no_column_header_is_a_snake_case_identifier(pages, name):
    md, html = pages[name]["md"], pages[name]["html"]
    md_headers, html_headers = _md_headers(md), _html_headers(html)
    assert md_headers and html_headers
    assert [h for h in md_headers if SNAKE.search(h)] == []
    assert [h for h in html_headers if SNAKE.search(h)] == []


@pytest.mark.parametrize("name", ["clause", *SUITES])
def test_rates_are_percent_in_markdown_and_html(pages, name):
    md, html = pages[name]["md"], pages[name]["html"]
    assert re.search(r"\| \d{1,3}\.\d% ", md), "a rate written as percent in a Markdown table"
    assert re.search(r">\d{1,3}\.\d%", html)
    # no rate written as a bare three-decimal fraction in a table (RDI, a direction in [-1, 1], is signed: +0.164)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", html) + [c for line in md.splitlines() if line.startswith("|")
                                                           for c in line.split("|")]
    assert [c for c in cells if re.fullmatch(r"\s*[01]\.\d{3}\s*", c)] == []


def test_scrub_lists_an_incomplete_system_after_the_ranked_ones_and_marks_it():
    rows = [{"model": "imported", "rank": None, "complete": False, "contracts": 4, "recall": None,
             "recall_ci_low": None, "recall_ci_high": None, "missing_calls": 1},
            {"model": "ranked", "rank": 1, "complete": True, "contracts": 4, "recall": 0.5, "recall_ci_low": 0.25,
             "recall_ci_high": 0.75, "missing_calls": 0}]
    shown = view("leaderboard", rows)
    assert [r["model"] for r in shown.rows] == ["ranked", "imported"]
    md = "\n".join(text_tables(shown, markdown=True))
    body = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert body[0].startswith("| ranked | 1 | yes | 4 | 50.0% | \\[25.0%, 75.0%\\] †")  # Markdown escapes [ ]
    assert body[1].startswith("| imported (incomplete) | – | no |")
    assert f"{FEW_MARK} the interval rests on fewer than 20 contracts (4)" in md
    page = html_tables(shown)
    assert page.index('data-value="ranked"') < page.index('data-value="imported"')


def test_the_debate_caption_is_generated_from_the_numbers():
    def row(**kw):
        base = dict(backbone="b", run=1, subset=None, config="c", decisions=100, fp_base=41, fp_debate=4,
                    fn_base=10, fn_debate=1, contradicted_base=67, contradicted_debate=12, far_base=0.1,
                    far_debate=0.01, frr_base=0.07, frr_debate=0.007, hal_gen_base=0.6, hal_gen_debate=0.1,
                    rdi_base=0.1, rdi_debate=0.0, mean_rounds=1.1, share_round1=0.9, consensus_rate=0.9,
                    flip_rate=0.1, calls_per_decision=4.0, tokens_per_decision=4000.0)
        return DebateEffectRow(**(base | kw))

    caption = debate_caption([row()])
    assert "contradicted clauses fall (67 → 12)" in caption and "barely move" not in caption
    assert "barely move (67 → 64)" in debate_caption([row(contradicted_debate=64)])
    # the s120 case: FN 145 -> 515, FRR 9.6% -> 33.9%: the caption says the debate drops true clauses
    worse = debate_caption([row(fn_base=145, fn_debate=515, frr_base=0.096, frr_debate=0.339)])
    assert "false negatives rise (145 → 515)" in worse and "FRR rises for b run 1 (c) 9.6% → 33.9%" in worse


def test_the_demo_debate_section_is_transposed_with_its_caption(pages):
    html = pages["clause"]["html"]
    section = html.split('<section id="debate">', 1)[1].split("</section>", 1)[0]
    assert "contradictions barely move" not in section
    caption = re.search(r'<p data-caption="debate">(.*?)</p>', section).group(1)
    assert "contradicted clauses fall" in caption
    headers = _html_headers(section.split("</thead>", 1)[0])
    assert len(headers) <= 4  # one column per debated run, not 25 fields


def test_an_interval_on_few_cases_says_so(pages):
    html = pages["clause"]["html"]
    report = pages["clause"]["md"]
    assert report  # the clause report's RDI rows with fewer than 20 contradicted clauses
    rdi = html.split('<section id="rdi">', 1)[1].split("</section>", 1)[0]
    few = re.findall(r"only (\d+) contradicted, too few to rely on", rdi)
    assert few and all(int(n) < 20 for n in few)
    assert 'data-note="few-cases"' in rdi
    for name in SUITES:  # the suites' leaderboard intervals rest on 4 contracts / 13 base queries
        board = pages[name]["html"].split('<section id="leaderboard">', 1)[1].split("</section>", 1)[0]
        assert "rests on fewer than 20" in board, name


def test_every_suite_leaderboard_draws_its_intervals(pages):
    for name in SUITES:
        board = pages[name]["html"].split('<section id="leaderboard">', 1)[1].split("</section>", 1)[0]
        assert 'data-figure="leaderboard_intervals"' in board and "<svg" in board, name


def _measure(path: Path, tmp: Path) -> dict:
    copy = tmp / f"{path.stem}.measure.html"
    copy.write_text(path.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--disable-background-networking", "--disable-component-update", "--no-first-run",
                          f"--window-size={WIDTH},{FOLD}", "--dump-dom", copy.as_uri()],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'<pre id="lhl-measure">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    return json.loads(html_lib.unescape(found.group(1)))


@pytest.mark.skipif(not CHROMIUM.exists(), reason="the layout test needs /usr/bin/chromium (.ci/run installs it)")
@pytest.mark.parametrize("name", ["clause", *SUITES, *(f"monitor-{s}" for s in ("clause", *SUITES))])
def test_at_1280_px_no_table_is_wider_than_the_page_and_the_verdict_is_above_the_fold(pages, name, tmp_path):
    from PIL import Image

    path = Path(pages[name]["path"])
    shot = tmp_path / f"{name}.png"
    subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--disable-background-networking", "--disable-component-update", "--no-first-run",
                    f"--screenshot={shot}", f"--window-size={WIDTH},{3 * FOLD}", path.as_uri()],
                   check=True, capture_output=True, timeout=120)
    with Image.open(shot) as image:
        assert image.size == (WIDTH, 3 * FOLD)
    m = _measure(path, tmp_path)
    assert m["client"] == WIDTH and m["scroll"] <= m["client"], "the page scrolls sideways"
    content = m["right"] - m["left"]
    assert content <= WIDTH - 2 * 24  # the body's margins and padding
    tables = [b for b in m["boxes"] if b["tag"] == "TABLE"]
    if name.startswith("monitor-"):  # the trend page: its figure of small multiples
        assert [b for b in m["boxes"] if b["name"] == "trend"]
    else:
        assert len(tables) >= 3 and [b for b in m["boxes"] if b["name"] == "trend"]  # every report's trend too
    wide = [b for b in m["boxes"] if b["width"] > content + 0.5 or b["right"] > m["right"] + 0.5]
    assert wide == [], wide
    if '<section id="verdict"' in pages[name]["html"] or 'id="verdict"' in pages[name]["html"]:
        assert m["verdict"] is not None and m["verdict"] < FOLD


@pytest.mark.skipif(not CHROMIUM.exists(), reason="the layout test needs /usr/bin/chromium (.ci/run installs it)")
@pytest.mark.parametrize("name", ["clause", *SUITES])
def test_at_1280_by_900_the_first_screen_says_what_the_winner_is_its_trade_offs_and_the_caveats(pages, name,
                                                                                                  tmp_path):
    """Read at 1,280 x 900 without scrolling: the winner is not a real model (the demo ranks none), the trade-off
    line (or what was weighed when none was found) and every caveat."""
    m = _measure(Path(pages[name]["path"]), tmp_path)
    first = m["first"]
    assert first["nature"] is not None and first["trade"] is not None and first["caveats"] is not None, first
    assert max(first.values()) <= 900, first
