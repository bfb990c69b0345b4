"""The HTML report: one self-contained file whose sections and numbers are the JSON report's."""

import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from lhl_platform.clause.report.build import report_from
from lhl_platform.clause.report.resampling import CountCube, composite_ranks
from lhl_platform.clause.report.stats import COUNTS
from lhl_platform.home import Home
from lhl_platform.stats.bootstrap import proportion_interval
from lhl_platform.warehouse.build import read_warehouse
from orchestration.cli import main

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ("--resamples", "300", "--seed", "3")


class Tables(HTMLParser):
    """Collects every `data-table`: its rows' data attributes and their cells' (metric, value, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[dict]] = {}
        self.sections: list[str] = []
        self.svgs = 0
        self._table: str | None = None
        self._row: dict | None = None
        self._cell: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a["id"])
        elif tag == "svg":
            self.svgs += 1
        elif tag == "table":
            self._table = a["data-table"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = {"attrs": {k[5:]: v for k, v in a.items() if k.startswith("data-")}, "cells": []}
        elif tag in ("td", "th") and self._row is not None:
            self._cell = {"metric": a.get("data-metric"), "value": a.get("data-value"), "text": ""}

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row["cells"].append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._row["attrs"] or any(c["metric"] for c in self._row["cells"]):
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None


def _values(row: dict) -> dict[str, str]:
    return {c["metric"]: c["value"] for c in row["cells"] if c["metric"]}


def _number(text: str):
    return None if text == "" else float(text)


@pytest.fixture(scope="module")
def rendered(demo_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "report.html"
    assert main(["--home", str(demo_home), "report", "--format", "html", "--out", str(out), *ARGS]) == 0
    json_out = out.with_suffix(".json")
    assert main(["--home", str(demo_home), "report", "--format", "json", "--out", str(json_out), *ARGS]) == 0
    return out, out.read_text(), json.loads(json_out.read_text())


def test_html_is_one_self_contained_file(rendered):
    _, html, _ = rendered
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    # nothing to fetch: every src/href and every CSS url(...) is a fragment of the page or a data: URI
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html) + re.findall(r"url\(([^)]*)\)", html)
    assert refs and all(r.startswith(("#", "data:")) for r in refs), [r for r in refs if r[:1] != "#"]
    assert "<!DOCTYPE svg" not in html and "<?xml" not in html


def test_html_sections_and_numbers_match_the_json_report(rendered):
    _, html, report = rendered
    page = Tables()
    page.feed(html)
    assert page.sections[:10] == ["verdict", "glossary", "scope", "notes", "leaderboard", "typed-haltp", "rdi",
                                  "composite", "statistics", "missing"]
    assert {"usage", "judge-validation", "checks"} <= set(page.sections)
    assert ("debate" in page.sections) == bool(report["debate_effects"])
    assert page.svgs >= 3  # typed HalTP, RDI forest plot, composite heat map

    # scope and provenance
    scope = report["scope"]
    for text in (scope["corpus_id"], scope["corpus_name"], scope["judge"], report["provenance"]["code_version"],
                 "extract-v1", "judge-v1", "lexical|1", "sim-omitter|2"):
        assert text in html, text

    # leaderboard: every exact value and its rounded text
    board = {r["attrs"]["model"]: r for r in page.tables["leaderboard"]}
    assert set(board) == {r["model"] for r in report["leaderboard"]}
    for row in report["leaderboard"]:
        values = _values(board[row["model"]])
        for metric in ("far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi"):
            assert _number(values[metric]) == row[metric], (row["model"], metric)
        assert int(values["n"]) == row["n"] and int(values["missing_rows"]) == row["missing_rows"]
        texts = [c["text"] for c in board[row["model"]]["cells"]]
        # rates in percent; a content figure of a judge not validated on held-out evidence carries its marker
        mark = {True: "", False: " !", None: " ?"}[row["judge_validated"]]
        assert f"{100 * row['hal_tp']:.1f}%{mark}" in texts
        assert f"[{row['rdi_ci_low']:+.3f}, {row['rdi_ci_high']:+.3f}]" in texts
        hal = next(i for i in report["statistics"]["rate_intervals"] if i["model"] == row["model"]
                   and i["metric"] == "hal_tp" and i["run"] is None and i["category"] is None)
        assert f"[{100 * hal['ci_low']:.1f}%, {100 * hal['ci_high']:.1f}%]" in texts

    # typed HalTP per (model, category)
    typed = {r["attrs"]["model"]: _values(r) for r in page.tables["typed_haltp"]}
    for row in report["typed_profiles"]:
        assert _number(typed[row["model"]][f"hal_tp:{row['category']}"]) == row["hal_tp"]

    # RDI per model and category, with its interval
    rdi = {(r["attrs"]["model"], r["attrs"]["category"] or None): r for r in page.tables["rdi"]}
    for row in report["rdi"]:
        shown = rdi[(row["model"], row["category"])]
        assert _number(_values(shown)["rdi"]) == row["rdi"]
        if row["rdi_ci_low"] is not None:
            # an interval with no spread is never printed as a point: too few cases, or the same in every resample
            expected = (f"[{row['rdi_ci_low']:+.3f}, {row['rdi_ci_high']:+.3f}]"
                        if row["rdi_ci_low"] != row["rdi_ci_high"] else f"too few (n={row['contradicted']})"
                        if row["contradicted"] < 20 else f"{row['rdi_ci_low']:+.3f} in every resample")
            assert expected in [c["text"] for c in shown["cells"]]

    # composite ranks under the five schemes, with rank stability
    ranks = {r["attrs"]["model"]: _values(r) for r in page.tables["composite"]}
    stability = {(s["scheme"], s["model"]): s["stability"] for s in report["statistics"]["rank_stability"]}
    for row in report["composite"]:
        assert _number(ranks[row["model"]][f"rank:{row['scheme']}"]) == row["rank"]
        assert f"kept in {100 * stability[(row['scheme'], row['model'])]:.0f}%" in html

    # statistics: run spread, scope share, every rate interval, clause-type means; missing rows
    assert len(page.tables["rate_intervals"]) == len({(i["model"], i["run"], i["category"])
                                                       for i in report["statistics"]["rate_intervals"]})
    spread = {(r["attrs"]["model"], r["attrs"]["category"] or None): _values(r) for r in page.tables["run_spread"]}
    for s in report["statistics"]["run_spread"]:
        assert _number(spread[(s["model"], s["category"])][f"{s['metric']}_mean"]) == s["mean"]
    means = {r["attrs"]["clause-type"]: _values(r) for r in page.tables["clause_profiles"]}
    for m in report["statistics"]["clause_type_means"]:
        assert _number(means[m["clause_type"]]["hal_tp_mean"]) == m["hal_tp_mean"]
    missing = {r["attrs"]["model"]: _values(r) for r in page.tables["missing_summary"]}
    for m in report["statistics"]["missing_summary"]:
        assert int(missing[m["model"]]["missing_rows"]) == m["missing_rows"]


def test_html_explains_what_a_reader_could_misread(rendered):
    _, html, report = rendered
    assert "RDI is a direction, not a magnitude" in html
    assert "factual has 3 clause types" in html
    crossing = [r for r in report["rdi"] if r["rdi_ci_low"] is not None and r["rdi_ci_low"] <= 0 <= r["rdi_ci_high"]]
    assert crossing, "the demo has intervals that include 0"
    assert "Intervals that cross zero" in html and f"{crossing[0]['model']} ({crossing[0]['category'] or 'overall'})" \
        in html


def test_statistics_in_json(rendered):
    _, _, report = rendered
    stats = report["statistics"]
    assert stats["bootstrap"] == {"unit": "instance", "resamples": 300, "seed": 3, "level": 0.95}
    models = {r["model"] for r in report["leaderboard"]}
    groups = {(i["model"], i["run"], i["category"]) for i in stats["rate_intervals"]}
    assert {(m, None, None) for m in models} | {(m, None, "factual") for m in models} | {(m, 2, None) for m in models} \
        <= groups
    assert {i["metric"] for i in stats["rate_intervals"]} == {"far", "frr", "acc", "hal_tp", "hal_gen", "jeq",
                                                              "p_scope", "p_missing", "p_extra"}
    board = {r["model"]: r for r in report["leaderboard"]}
    for i in stats["rate_intervals"]:
        if i["run"] is None and i["category"] is None and i["metric"] in ("far", "hal_tp", "jeq"):
            assert i["value"] == board[i["model"]][i["metric"]]
        if i["ci_low"] is not None:
            assert 0 <= i["ci_low"] <= i["ci_high"] <= 1
    # the instance interval of a rate is the binomial bootstrap of its counts
    hal = next(i for i in stats["rate_intervals"] if i["metric"] == "hal_tp" and i["run"] is None
               and i["category"] is None)
    assert (hal["ci_low"], hal["ci_high"]) == proportion_interval(
        hal["numerator"], hal["denominator"], resamples=300, seed=3, key=f"{hal['model']}|None|None|hal_tp")
    # run spread pooled equals run_summary; scope share is the rdi table's p_scope
    summary = {r["model"]: r for r in report["run_summary"]}
    for s in stats["run_spread"]:
        if s["category"] is None:
            assert s["mean"] == pytest.approx(summary[s["model"]][f"{s['metric']}_mean"], nan_ok=True)
    p_scope = {(r["model"], r["category"]): r["p_scope"] for r in report["rdi"]}
    for i in stats["rate_intervals"]:
        if i["metric"] == "p_scope" and i["run"] is None:
            assert i["value"] == pytest.approx(p_scope[(i["model"], i["category"])], nan_ok=True)
    assert {m["model"] for m in stats["missing_summary"]} == models
    assert len(stats["clause_type_means"]) == 41
    assert {(s["scheme"], s["model"]) for s in stats["rank_stability"]} == {(c["scheme"], c["model"])
                                                                            for c in report["composite"]}
    assert all(0 <= s["stability"] <= 1 for s in stats["rank_stability"] if s["stability"] is not None)


def test_vectorised_composite_reproduces_the_sql_ranks(demo_home):
    with read_warehouse(Home.resolve(demo_home)) as con:
        report = report_from(con, resamples=50)
        cube = CountCube.read(con)
    models = [r.model for r in report.leaderboard]
    index = [cube.models.index(m) for m in models]
    matched = (cube.counts[index].sum(axis=2) * cube.matched[None, :, :, None]).sum(axis=(1, 2))
    assert matched.shape == (len(models), len(COUNTS))
    ranks = composite_ranks(matched)  # (schemes, models)
    schemes = list(dict.fromkeys(c.scheme for c in report.composite))
    for c in report.composite:
        got = ranks[schemes.index(c.scheme), models.index(c.model)]
        assert (None if np.isnan(got) else int(got)) == c.rank, (c.scheme, c.model)


def test_contract_bootstrap_gives_intervals_for_every_rate(demo_home, capsys):
    assert main(["--home", str(demo_home), "report", "--format", "json", "--bootstrap", "contract", *ARGS]) == 0
    stats = json.loads(capsys.readouterr().out)["statistics"]
    assert stats["bootstrap"]["unit"] == "contract"
    pooled = [i for i in stats["rate_intervals"] if i["run"] is None and i["category"] is None]
    assert pooled and all(i["ci_low"] is not None for i in pooled if i["denominator"] > 0)


def test_figures_are_attached_to_the_marts_in_dagster(demo_home):
    from dagster import AssetKey, DagsterInstance

    with DagsterInstance.from_config(str(Path(demo_home) / "dagster")) as instance:
        for mart in ("rdi", "typed_profiles", "composite_ranks"):
            event = instance.get_latest_materialization_event(AssetKey(mart))
            assert event is not None and event.asset_materialization is not None
            figures = [v for k, v in event.asset_materialization.metadata.items() if k != "rows"]
            assert figures, mart
            assert all(v.md_str.startswith("![") and "(data:image/svg+xml;base64," in v.md_str for v in figures)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="headless screenshot needs /usr/bin/chromium (.ci/run installs it)")
def test_headless_chromium_renders_the_figures(rendered, tmp_path):
    from PIL import Image

    path, _, _ = rendered
    shot = tmp_path / "report.png"
    subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--no-first-run", f"--screenshot={shot}", "--window-size=1200,8000",
                    "--hide-scrollbars", path.as_uri()], check=True, capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 50_000
    image = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert image.shape[:2] == (8000, 1200)  # down to the composite heat map, below the verdict and leaderboard
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 200  # not a blank or text-only page

    def near(rgb: str) -> int:
        target = np.array([int(rgb[i:i + 2], 16) for i in (1, 3, 5)])
        return int((np.abs(image - target).sum(axis=-1) < 40).sum())

    # the first two model colours of the forest plots, and the heat map's darkest green
    assert near("#1f77b4") > 300 and near("#d62728") > 300
    assert near("#004529") > 1000


def test_judge_validation_status_shows_when_present(demo_home):
    from lhl_platform.clause.report.html import render_html
    from lhl_platform.quality.checks import CheckOutcome

    with read_warehouse(Home.resolve(demo_home)) as con:
        report = report_from(con, resamples=50)
    # the demo validates its judge: the report carries the result
    validated = render_html(report, [])
    section = validated.split('<section id="judge-validation">')[1].split("</section>")[0]
    assert "rubric" in section and "judge-suite-v2" in section
    # the gate's evidence: each held-out set's families, with the accuracy on decided items and the share decided
    assert "Held-out families" in section and "clause-heldout-v1" in section and "accuracy_decided" in section
    unvalidated = report.model_copy(update={"judge_validation": [], "judge_heldout": []})
    assert "have not been checked on held-out evidence" in render_html(unvalidated, [])
    failed = CheckOutcome(name="judge_validation", passed=False, description="the primary judge passed its suite",
                          summary="rubric has not passed the suite on this corpus")
    shown = render_html(unvalidated, [failed])
    section = shown.split('<section id="judge-validation">')[1].split("</section>")[0]
    assert "FAIL" in section and "rubric has not passed the suite" in section


def test_missing_rows_are_attributed_to_contracts(tmp_path):
    from lhl_platform.clause.importer import import_outcomes
    from lhl_platform.clause.report.build import build_report
    from lhl_platform.clause.report.html import render_html
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES
    from tests.helpers import outcome, write_outcomes

    # c1 lacks one clause type in both runs (persistent), c2 three in run 1 only; c3 and c4 are complete
    rows = []
    for run in (1, 2):
        for contract in ("c1", "c2", "c3", "c4"):
            skip = 1 if contract == "c1" else 3 if (contract, run) == ("c2", 1) else 0
            rows += [outcome("m", run, contract, c, "TN") for c in CLAUSE_TYPES[skip:]]
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    report = build_report(home, resamples=50)
    (summary,) = report.statistics.missing_summary
    assert (summary.nominal_rows, summary.missing_rows) == (4 * 2 * 41, 5)
    assert (summary.contracts_incomplete, summary.contracts_persistent, summary.persistent_missing_rows) == (2, 1, 2)
    assert summary.persistent_fraction == 0.5 and summary.persistent_row_share == pytest.approx(0.4)
    assert [(m.contract_id, m.persistent) for m in report.statistics.missing_by_contract] == [("c1", True),
                                                                                              ("c2", False)]
    html = render_html(report)
    page = Tables()
    page.feed(html)
    assert 'data-figure="missing_rows"' in html
    assert [r["attrs"]["contract"] for r in page.tables["missing_by_contract"]] == ["c1", "c2"]
    assert _values(page.tables["missing_summary"][0])["persistent_fraction"] == "0.5"
