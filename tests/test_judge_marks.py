"""A judge that failed its validation, or has none, is visible wherever figures are read (issue #26, item 3).

One home, four judges of the same recorded extractions, under the held-out gate: `fit`, an LLM judge through the
OpenAI SDK against a loopback fake that answers every validation item as labelled (tests/labelled_judges.py),
passes; `rubric` passes the in-sample dissociation suite and fails held out; `surface` (the token-overlap control)
fails both; `unvetted` (the same algorithm) was never validated. Every leaderboard row
carries `judge_validated` (true, false, null); the table and Markdown mark HalTP, HalGen, JEq and RDI and explain
the marker, CSV and JSON carry the field (JSON with the checks), the HTML opens with a banner, `lhl publish`
writes it, `lhl publish --strict` and `lhl compare` refuse a failed judge, and `lhl audit --judge` warns.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.clause.report.publish import read_published
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.home import Home
from lhl_platform.lexflip.heldout import heldout_sets
from lhl_platform.lexflip.items import build_suite
from orchestration.cli import main
from tests.fakes import ScriptedServer
from tests.labelled_judges import ClauseLabelled
from tests.test_llm_providers import OpenAIFake

MODELS = "lexical,sim-omitter"
STATUS = {"fit": True, "rubric": False, "surface": False, "unvetted": None}
FIT_PARAMS = json.dumps({"max_retries": 0, "concurrency": 16, "backoff_base_s": 0.01})
MARK = {True: "", False: "!", None: "?"}
CONTENT = ("HalTP", "HalGen", "JEq")  # beside RDI, which shares its cell with the interval
PLAIN = ("FAR", "FRR", "Acc")  # figures no judge labels: never marked


def _cli(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("judge-marks")
    assert _cli(root, "ingest", "cuad", str(DEMO_DIR)) == 0
    for name, model_id in (("lexical", "lexical"), ("sim-omitter", "simulated:omitter")):
        assert _cli(root, "models", "add", name, "--provider", "offline", "--model-id", model_id) == 0
    for judge in ("surface", "unvetted"):
        assert _cli(root, "models", "add", judge, "--provider", "offline", "--model-id", "overlap",
                    "--role", "judge") == 0
    with ScriptedServer() as server, pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_API_KEY", "sk-test-secret")
        fake = OpenAIFake()
        home = Home.resolve(root)
        suite = build_suite(load_corpus(home, active_corpus_id(home)).oracle, seed=0, per_kind=1)
        server.respond = ClauseLabelled("openai", fake.ok, fake.refused, fake.truncated,
                                        [*suite.items, *(i for h in heldout_sets() for i in h.items)])
        assert _cli(root, "models", "add", "fit", "--provider", "openai", "--model-id", "gpt-test", "--base-url",
                    server.url + "/v1", "--role", "judge", "--params", FIT_PARAMS) == 0
        # The first audits' partition runs go through the one run path without the metrics job (its ~420 steps
        # are most of an audit here); the last audit, through the CLI, builds the marts, checks and drift of all.
        _partitions(root)  # rubric judges
        assert _cli(root, "judge", "validate", "--judge", "rubric") == 2  # in-sample only: not validated
        assert _cli(root, "judge", "validate", "--judge", "surface") == 2
        assert _cli(root, "judge", "validate", "--judge", "fit", "--per-kind", "1", "--samples", "1") == 0
        _partitions(root, judge="surface")  # re-judges the recorded extractions, as `lhl audit --judge` does
        _partitions(root, judge="fit")
        assert _cli(root, "audit", "--models", MODELS, "--runs", "1", "--contracts", "6", "--judge",
                    "unvetted") == 0
        yield root


def _partitions(root: Path, judge: str | None = None) -> None:
    from lhl_platform.home import Home
    from lhl_platform.suites import get_suite
    from orchestration.cli.audit import AuditOptions, run_audit

    assert run_audit(Home.resolve(root), get_suite("clause"), MODELS.split(","), [1],
                     AuditOptions(contracts=6, judge=judge), say=lambda _: None, metrics=False) == 0


def _out(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert _cli(home, *args) == 0
    return capsys.readouterr().out


def _report(home: Path, capsys: pytest.CaptureFixture[str], judge: str, fmt: str) -> str:
    return _out(home, capsys, "report", "--judge", judge, "--format", fmt, "--resamples", "50")


def _leaderboard_cells(report: str, markdown: bool) -> list[dict[str, str]]:
    """The leaderboard of a table or Markdown report, one {header: cell} per model."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if "Leaderboard" in line) + (1 if markdown else 2)
    if markdown:
        rows = []
        for line in lines[start:]:
            if not line.startswith("|"):
                break
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        header, body = rows[0], rows[2:]
    else:
        header = re.split(r"\s{2,}", lines[start].strip())
        body = []
        for line in lines[start + 2:]:
            if not line.strip() or line.startswith(("!", "?", "*")):
                break
            body.append(re.split(r"\s{2,}", line.strip()))
    assert body and all(len(row) == len(header) for row in body), (header, body)
    return [dict(zip(header, row, strict=True)) for row in body]


@pytest.mark.parametrize("fmt", ["table", "md"])
@pytest.mark.parametrize("judge", list(STATUS))
def test_the_leaderboard_marks_the_content_figures_of_an_unfit_judge_and_says_why(home, capsys, judge, fmt):
    report = _report(home, capsys, judge, fmt)
    mark = MARK[STATUS[judge]]
    rows = _leaderboard_cells(report, markdown=fmt == "md")
    # each name with what it is beside it: lexical is an offline algorithm, sim-omitter simulated from the gold
    assert {r["model"] for r in rows} == {"lexical (offline algorithm)", "sim-omitter (simulated from the gold)"}
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)  # in rank order
    for row in rows:
        for name in CONTENT:
            assert row[name].endswith(f" {mark}") if mark else not row[name].endswith(("!", "?")), (name, row)
        # the figure, its mark, then its interval: "[low, high]", or in words where it has no spread
        rdi = re.match(r"(\S+(?: [!?])?)(?: \\?\[| too few| \S+ in every resample|$)", row["RDI [95% CI]"]).group(1)
        assert rdi.endswith(f" {mark}") if mark else rdi.count(" ") == 0, row
        assert not any(row[name].endswith(("!", "?")) for name in PLAIN), row
    legend = [line for line in report.splitlines() if line.startswith(f"{mark} judge {judge}")] if mark else []
    if STATUS[judge] is False:
        assert len(legend) == 1 and "FAILED held-out validation" in legend[0]
    elif STATUS[judge] is None:
        assert len(legend) == 1 and "has not been validated" in legend[0]
    else:
        assert not [line for line in report.splitlines() if re.match(r"^[!?] judge ", line)]
    scope_judge = next(line for line in report.splitlines() if "judge:" in line)
    assert judge in scope_judge and (("FAILED" in scope_judge) == (STATUS[judge] is False))


@pytest.mark.parametrize("judge", list(STATUS))
def test_csv_carries_judge_validated_on_every_row(home, capsys, judge):
    rows = list(csv.DictReader(io.StringIO(_report(home, capsys, judge, "csv"))))
    # the metric rows, after the verdict's and before the cost section's (which carry no judge)
    metric = [r for r in rows if r["table"] != "verdict" and not r["table"].startswith("cost_")]
    assert rows[0]["table"] == "verdict"
    assert {r["table"] for r in metric} == {"leaderboard", "per_run", "typed_profiles"}
    assert {r["judge_validated"] for r in metric} == {{True: "true", False: "false", None: ""}[STATUS[judge]]}


@pytest.mark.parametrize("judge", list(STATUS))
def test_json_rows_carry_judge_validated_and_the_report_carries_its_checks(home, capsys, judge):
    report = json.loads(_report(home, capsys, judge, "json"))
    assert [r["judge_validated"] for r in report["leaderboard"]] == [STATUS[judge]] * 2
    checks = {c["name"]: c for c in report["checks"]}
    assert all(set(c) == {"name", "passed", "summary"} for c in report["checks"])
    assert checks["judge_validated"]["passed"] is bool(STATUS[judge])
    assert judge in checks["judge_validated"]["summary"]
    # the same checks the table prints, with the same results
    table = _report(home, capsys, judge, "table")
    printed = {name: result for result, name in re.findall(r"^\[(PASS|FAIL)\] (\S+):", table, re.M)}
    assert printed == {name: "PASS" if c["passed"] else "FAIL" for name, c in checks.items()}


@pytest.mark.parametrize("judge", list(STATUS))
def test_the_html_report_opens_with_a_banner_when_the_judge_is_not_shown_fit(home, capsys, judge):
    page = _report(home, capsys, judge, "html")
    header = page[page.index("<header>"):page.index("</header>")]
    status = STATUS[judge]
    if status:
        assert 'id="judge-banner"' not in page
    else:
        assert 'id="judge-banner"' in header and page.index('id="judge-banner"') < page.index("<nav>")
        assert f'data-judge="{judge}"' in header
        assert f'data-judge-validated="{"" if status is None else "false"}"' in header
        assert ("failed held-out validation" if status is False else "not validated") in header
    value = "" if status is None else str(status).lower()
    lead = re.findall(r'<tr data-model="[^"]+" data-judge-validated="([^"]*)">', page)
    assert lead == [value, value]
    hal = re.findall(r'data-metric="hal_tp" data-value="[^"]*">([^<]*)<', page.split('data-table="leaderboard"')[1]
                     .split("</table>")[0])
    # in percent, the mark after it (none for a judge shown fit)
    assert len(hal) == 2 and all(h.endswith(f"% {MARK[status]}") if MARK[status] else h.endswith("%") for h in hal)


def test_publish_writes_judge_validated_and_strict_refuses_a_failed_judge(home, capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    for judge in STATUS:
        capsys.readouterr()
        assert _cli(home, "publish", url, "--judge", judge, "--resamples", "50") == 0
        leaderboard = json.loads(_report(home, capsys, judge, "json"))["leaderboard"]
        key = [k for k, j in _publications(url) if j == judge][0]
        published = [r.model_dump(mode="json") for r in read_published(url, "leaderboard", key)]
        assert published == leaderboard and {r["judge_validated"] for r in published} == {STATUS[judge]}
    engine = create_engine(url)
    with engine.connect() as con:
        scopes = dict(con.execute(text("select judge, judge_validated from publications")).all())
    engine.dispose()
    assert {j: None if v is None else bool(v) for j, v in scopes.items()} == STATUS

    before = _publications(url)
    capsys.readouterr()
    assert _cli(home, "publish", url, "--judge", "surface", "--resamples", "50", "--strict") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--strict" in err and "judge_validated" in err and "surface" in err
    assert _publications(url) == before


def _publications(url: str) -> list[tuple[str, str]]:
    engine = create_engine(url)
    with engine.connect() as con:
        found = [(k, j) for k, j in con.execute(text("select scope_key, judge from publications order by 1"))]
    engine.dispose()
    return found


def test_publish_adds_the_judge_validated_column_to_a_database_published_before_it(home, capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    assert _cli(home, "publish", url, "--resamples", "50") == 0
    engine = create_engine(url)
    with engine.begin() as con:  # as an earlier version left it: the tables without the new columns
        for table in ("leaderboard", "publications"):
            con.execute(text(f"alter table {table} drop column judge_validated"))
    engine.dispose()
    assert _cli(home, "publish", url, "--judge", "surface", "--resamples", "50") == 0
    key = [k for k, j in _publications(url) if j == "surface"][0]
    assert {r.model_dump()["judge_validated"] for r in read_published(url, "leaderboard", key)} == {False}
    earlier = [k for k, j in _publications(url) if j == "rubric"][0]
    assert {r.model_dump()["judge_validated"] for r in read_published(url, "leaderboard", earlier)} == {None}


def test_compare_refuses_a_judge_that_failed_its_validation_unless_forced(home, capsys):
    capsys.readouterr()
    assert _cli(home, "compare", "lexical", "sim-omitter", "--judge", "surface", "--resamples", "50") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "judge surface failed held-out validation" in err
    assert "--force" in err and "--judge" in err
    forced = _out(home, capsys, "compare", "lexical", "sim-omitter", "--judge", "surface", "--resamples", "50",
                  "--force")
    metrics = {line.split()[0]: line for line in forced.splitlines() if line.split()[:1] and line.split()[0] in (
        "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi")}
    assert all(metrics[m].split()[1] == "!" for m in ("hal_tp", "hal_gen", "jeq", "rdi"))
    assert all(metrics[m].split()[1] != "!" for m in ("far", "frr", "acc"))
    assert "! judge surface FAILED held-out validation" in forced
    as_json = json.loads(_out(home, capsys, "compare", "lexical", "sim-omitter", "--judge", "surface",
                              "--resamples", "50", "--force", "--format", "json"))
    assert as_json["judge_validated"] is False
    for judge in ("fit", "unvetted"):  # a judge that passed, or was never validated, is compared (and marked)
        shown = _out(home, capsys, "compare", "lexical", "sim-omitter", "--judge", judge, "--resamples", "50")
        assert ("? judge unvetted has not been validated" in shown) == (judge == "unvetted")
        assert "!" not in shown


@pytest.mark.parametrize("judge", list(STATUS))
def test_audit_with_a_judge_warns_once_when_it_failed_or_was_never_validated(home, capsys, judge):
    capsys.readouterr()
    assert _cli(home, "audit", "--models", "lexical", "--runs", "1", "--contracts", "6", "--judge", judge,
                "--dry-run") == 0
    err = capsys.readouterr().err
    if STATUS[judge] is None:
        assert err.count("\n") == 1 and f"judge {judge} is not validated: it has not been validated" in err
    elif STATUS[judge] is False:
        assert err.count("\n") == 1 and f"judge {judge} is not validated: it failed held-out validation" in err
    else:
        assert err == ""
