"""A reader's check of every suite's report after `lhl demo` (issue #41): each HTML and Markdown page, as `lhl report`
prints it, is read as a legal team's analyst would read it, and fails on

- a snake_case identifier outside code spans (names from outside the platform, systems, judges and the corpus,
  are data and allowed);
- an abbreviation from a fixed list that the page uses without defining it in its glossary;
- an interval on fewer than 20 cases drawn as a filled point, or printed as a point `[x, x]`;
- a leaderboard not in rank order, or whose first row is not the verdict's first system;
- a system that is not a real model named without what it is, or a verdict that does not say so;
- a trade-off line missing from the verdict.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path

import pytest

from lhl_platform.report.glossary import TERMS
from orchestration.cli import main

SUITES = ("clause", "contractscrub", "insufficiency")
# The abbreviations a lawyer cannot be expected to know: each must be defined on every page that uses it.
ABBREVIATIONS = ("FAR", "FRR", "Acc", "HalTP", "HalGen", "JEq", "RDI", "F1", "F2", "ExplAcc", "TP", "FP", "FN", "TN",
                 "pp", "CI", "M_v")
SNAKE = re.compile(r"(?<![\w./:@`\\-])[a-z][a-z0-9]*(?:\\?_[a-z0-9]+)+(?![\w/`-]|\.\w)")
STAND_INS = {"simulated from the gold", "offline algorithm", "reads the answer key"}


def _lhl(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(["--home", str(home), *argv]) == 0
    return capsys.readouterr().out


@pytest.fixture
def page(demo_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, request: pytest.FixtureRequest
         ) -> dict[str, object]:
    suite, fmt = request.param
    report = json.loads(_lhl(demo_home, capsys, "report", "--suite", suite, "--format", "json", "--resamples", "200"))
    if fmt == "html":
        out = tmp_path / "r.html"
        _lhl(demo_home, capsys, "report", "--suite", suite, "--format", "html", "--out", str(out), "--resamples", "200")
        text = out.read_text(encoding="utf-8")
    else:
        text = _lhl(demo_home, capsys, "report", "--suite", suite, "--format", "md", "--resamples", "200")
    return {"suite": suite, "fmt": fmt, "text": text, "json": report}


CASES = [pytest.param((s, f), id=f"{s}-{f}") for s in SUITES for f in ("html", "md")]


def _reader_text(text: str, fmt: str) -> str:
    """What a reader reads: Markdown without its code spans; HTML's text without tags, styles, code and SVG."""
    if fmt == "md":
        return re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"<(style|code|svg|title)\b.*?</\1>", " ", text, flags=re.S)
    return html_lib.unescape(re.sub(r"<[^>]*>", " ", text))


def _outside_names(report: dict[str, object]) -> set[str]:
    scope = report["scope"]
    assert isinstance(scope, dict)
    names = {*scope.get("models", []), scope.get("judge"), scope.get("corpus_name"), scope.get("item_set")}
    names |= {s["model"] for s in report.get("systems", [])}  # type: ignore[union-attr]
    return {n for n in names if isinstance(n, str)}


def _glossary(text: str, fmt: str) -> set[str]:
    if fmt == "md":
        block = text.split("## Terms", 1)[1].split("\n## ", 1)[0] if "## Terms" in text else ""
        return set(re.findall(r"^- \*\*(.+?)\*\*:", block, re.M))
    block = text.split('<section id="glossary">', 1)[1].split("</section>", 1)[0] if 'id="glossary"' in text else ""
    return {html_lib.unescape(t) for t in re.findall(r"<dt>(.*?)</dt>", block)}


@pytest.mark.parametrize("page", CASES, indirect=True)
def test_no_snake_case_identifier_reaches_the_reader(page: dict[str, object]) -> None:
    text = _reader_text(str(page["text"]), str(page["fmt"]))
    allowed = _outside_names(page["json"])  # type: ignore[arg-type]
    found = sorted({w.replace("\\_", "_") for w in SNAKE.findall(text)} - allowed)
    assert not found, found


@pytest.mark.parametrize("page", CASES, indirect=True)
def test_every_abbreviation_used_is_defined_on_the_page(page: dict[str, object]) -> None:
    text, fmt = str(page["text"]), str(page["fmt"])
    shown = _reader_text(text, fmt).replace("\\_", "_")
    used = {a for a in ABBREVIATIONS if re.search(rf"(?<![\w-]){re.escape(a)}(?![\w-])", shown)}
    defined = _glossary(text, fmt)
    assert used, "a report uses some abbreviation"
    assert defined <= set(TERMS)
    missing = {a for a in used - defined if not any(t.startswith(a) for t in defined)}  # "95% CI" defines CI
    missing -= {"CI"} if "95% CI" in defined else set()
    assert not missing, (sorted(missing), sorted(defined))


@pytest.mark.parametrize("page", CASES, indirect=True)
def test_no_interval_is_a_point_and_few_cases_are_never_drawn_solid(page: dict[str, object]) -> None:
    text, fmt = str(page["text"]), str(page["fmt"])
    shown = _reader_text(text, fmt).replace("\\[", "[").replace("\\]", "]")
    points = [m.group(0) for m in re.finditer(r"\[([+-]?[\d.]+%?), ([+-]?[\d.]+%?)\]", shown)
              if m.group(1) == m.group(2)]
    assert not points, points
    if fmt == "html":  # the plain-SVG strips: a dot on few cases is hollow and carries its n
        for circle in re.findall(r"<circle [^>]*>", text):
            if "data-few-cases" in circle:
                assert 'fill="white"' in circle, circle
        few = [r for r in page["json"].get("leaderboard", [])  # type: ignore[union-attr]
               if any(isinstance(r.get(k), int) and r[k] < 20 for k in ("gold", "base_items", "contracts"))]
        if few and page["suite"] != "clause":
            assert "data-few-cases" in text


@pytest.mark.parametrize("page", CASES, indirect=True)
def test_the_leaderboard_is_in_rank_order_and_opens_with_the_verdicts_winner(page: dict[str, object]) -> None:
    text, fmt = str(page["text"]), str(page["fmt"])
    verdict = page["json"]["verdict"]  # type: ignore[index]
    if fmt == "html":
        board = re.search(r'<table[^>]* data-table="leaderboard">(.*?)</table>', text, re.S)
        assert board is not None
        ranks = [v for v in re.findall(r'data-metric="rank" data-value="([^"]*)"', board.group(1))]
        first = re.search(r'data-metric="model" data-value="([^"]*)"', board.group(1))
        assert first is not None and first.group(1) == verdict["best"][0]
    else:
        block = re.search(r"## Leaderboard[^\n]*\n(\|.*?)\n\n", text, re.S)
        assert block is not None
        lines = block.group(1).splitlines()
        header = [c.strip() for c in lines[0].strip("|").split("|")]
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
        ranks = [r[header.index("rank")] for r in rows]
        assert rows[0][0].split(" (")[0] == verdict["best"][0]
    numbers = [int(r) for r in ranks if r not in ("", "–", "-")]
    assert numbers == sorted(numbers) and numbers[0] == 1
    assert ranks[: len(numbers)] == [str(n) for n in numbers]  # the unranked last


@pytest.mark.parametrize("page", CASES, indirect=True)
def test_a_stand_in_is_named_for_what_it_is_and_the_verdict_says_so(page: dict[str, object]) -> None:
    text, fmt = str(page["text"]), str(page["fmt"])
    report = page["json"]
    verdict = report["verdict"]  # type: ignore[index]
    natures = {s["model"]: s["nature"] for s in report["systems"]}  # type: ignore[index]
    winner = verdict["best"][0]
    assert natures[winner] in ("simulated", "gold_reader", "algorithm")  # the demo ranks no real model
    assert verdict["natures"][winner] == natures[winner]
    caveats = {c["kind"]: c for c in verdict["caveats"]}
    assert "not_a_real_model" in caveats and winner in caveats["not_a_real_model"]["subjects"]
    shown = _reader_text(text, fmt)
    assert any(f"{winner} ({tag})" in shown for tag in STAND_INS) or fmt == "html"
    if fmt == "html":  # in the table, what it is sits under the name
        assert re.search(rf'data-value="{re.escape(winner)}">{re.escape(html_lib.escape(winner))}[^<]*<br><span '
                         r'class="nature">', text)
    if fmt == "html":  # no figure draws a stand-in by its bare name
        stand_ins = {m for m, n in natures.items() if n in ("simulated", "gold_reader", "algorithm")}
        drawn = {html_lib.unescape(t).strip() for svg in re.findall(r"<svg.*?</svg>", text, re.S)
                 for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
        assert any(f"{winner} (" in t for t in drawn), "the figures name the winner"
        assert not stand_ins & drawn, sorted(stand_ins & drawn)
    first_screen = text.split('<section id="glossary">')[0] if fmt == "html" else text.split("## Terms")[0]
    assert "not a real model" in first_screen  # on the first screen: the verdict


@pytest.mark.parametrize("page", CASES, indirect=True)
def test_the_verdict_states_its_trade_offs_or_what_it_weighed(page: dict[str, object]) -> None:
    text, fmt = str(page["text"]), str(page["fmt"])
    verdict = page["json"]["verdict"]  # type: ignore[index]
    head = text.split('<section id="glossary">')[0] if fmt == "html" else text.split("## Terms")[0]
    assert ("Trade-off" in head) if fmt == "html" else ("trade-off:" in head)
    if not verdict["trade_offs"]:
        assert "none found on" in head and any(c in head for c in ("calls per", "cost per"))
    assert any(c.startswith(("calls per", "cost per")) for c in verdict["checked"])
