"""An LLM clause judge, end to end, through each provider's real SDK against a loopback fake of its wire format
(OpenAI-compatible, Anthropic, Gemini): registered with its rates, its validation estimated first (`--dry-run`,
nothing called), stopped by a spending limit (`--max-cost`) and resumed without asking a recorded question again,
validated with k = 5 samples that disagree, made primary, and an audit judged by it and reported as validated.

The fake judge answers each validation item as labelled (tests/labelled_judges.py): it proves the platform's
path, not a judge's skill. Three held-out items are answered malformed, refused and truncated the first time they
are asked: each is recorded unanswered, never a verdict, and asked again on the next run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lhl_platform.calls.exit_codes import LIMIT_EXIT_CODE
from lhl_platform.clause.judging import STAGE as JUDGE_STAGE
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from lhl_platform.lexflip.events import JudgeValidationItem, JudgeValidationScore, ValidationEvent
from lhl_platform.lexflip.heldout import heldout_sets
from lhl_platform.lexflip.items import build_suite
from lhl_platform.lexflip.validate import validation_stream
from orchestration.cli import main
from tests.fakes import ScriptedServer
from tests.labelled_judges import ClauseLabelled
from tests.test_llm_providers import FAKES, MODEL_IDS

JUDGE = "llm-judge"
PER_KIND = 1  # one generated item per kind of edit: the in-sample suite stays small; the held-out sets are whole
SAMPLES = 5
FAST = {"backoff_base_s": 0.01, "backoff_max_s": 0.2, "max_retries": 0, "timeout_s": 10, "concurrency": 16}
PRICES = ("--input-price", "1.0", "--output-price", "4.0")  # USD per million tokens
CAP = 0.5  # USD: a few calls' worth (each reserves its worst case first), far below the validation's cost


def lhl(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


def _json(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = lhl(home, *args)
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.fixture(params=FAKES, ids=lambda f: f.provider)
def fake(request, monkeypatch):
    for other in FAKES:
        for name in other.env:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for name, value in request.param.env.items():
        monkeypatch.setenv(name, value)
    with ScriptedServer() as server:
        request.param.server = server
        yield request.param


def test_an_llm_judge_is_estimated_capped_validated_made_primary_and_judges_an_audit(fake, tmp_path, capsys):
    root = tmp_path / "home"
    assert lhl(root, "ingest", "cuad", str(DEMO_DIR)) == 0
    assert lhl(root, "models", "add", "lexical", "--provider", "offline", "--model-id", "lexical") == 0
    assert lhl(root, "models", "add", JUDGE, "--provider", fake.provider, "--model-id", MODEL_IDS[fake.provider],
               "--base-url", fake.server.url + fake.base, "--role", "judge", "--params", json.dumps(FAST),
               *PRICES) == 0
    home = Home.resolve(root)
    suite = build_suite(load_corpus(home, active_corpus_id(home)).oracle, seed=0, per_kind=PER_KIND)
    held = heldout_sets()
    items = [*suite.items, *(i for h in held for i in h.items)]
    broken = tuple(i.edited for i in held[0].items[:3])  # malformed, refused, truncated: the first time asked
    judge = ClauseLabelled(fake.provider, fake.ok, fake.refused, fake.truncated, items, broken=broken)
    fake.server.respond = judge
    validate = ("judge", "validate", "--judge", JUDGE, "--samples", str(SAMPLES), "--per-kind", str(PER_KIND))

    # 1. The estimate first: one verdict per item and k scores per (item, pair), priced; nothing called.
    code, estimate = _json(capsys, root, *validate, "--dry-run", "--format", "json")
    assert code == 0 and fake.server.requests == []
    assert estimate["calls"] == len(items) * (1 + 3 * SAMPLES) and estimate["cost_usd"] > CAP

    # 2. A spending limit stops it, in one line and with its own exit code, having spent at most the limit.
    capsys.readouterr()
    assert lhl(root, *validate, "--max-cost", str(CAP)) == LIMIT_EXIT_CODE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "spending limit reached" in err
    spent = float(re.search(r"spent \$([0-9.,]+) of the \$0.5000 limit", err).group(1))  # type: ignore[union-attr]
    assert 0 < spent <= CAP
    stream = validation_stream(JUDGE)
    calls = [e.data_as(ModelCall) for e in home.events.read(stream) if e.type == "model.call"]
    made = len(fake.server.requests)  # two units asking the same question at once may both have been sent
    assert 0 < len(calls) <= made < estimate["calls"]
    code, left = _json(capsys, root, *validate, "--dry-run", "--format", "json")
    answered = {c.request_key for c in calls if c.error is None}
    units = sum(1 for e in home.events.read(stream) if (e.type == ValidationEvent.ITEM and e.data().verdict) or (
        e.type == ValidationEvent.SCORE and e.data().rating is not None))
    assert left["calls"] == estimate["calls"] - units  # what is recorded is not estimated again

    # 3. Without the limit it goes on: no question recorded is asked again, the three broken replies are recorded
    # unanswered (never a verdict), and the judge passes every held-out set.
    code, result = _json(capsys, root, *validate, "--format", "json")
    assert code == 0 and result["gate"] == "held_out" and result["passed"] is True and result["samples"] == SAMPLES
    recorded = [e.data_as(ModelCall).request_key for e in home.events.read(stream) if e.type == "model.call"]
    assert all(recorded.count(k) == 1 for k in answered)  # an answered question is never asked again
    first = result["held_out"][0]
    assert sum(f["unanswered"] for f in first["families"]) == 3
    verdicts = [e.data_as(JudgeValidationItem) for e in home.events.read(stream) if e.type == ValidationEvent.ITEM]
    failed = [v for v in verdicts if v.error is not None]
    assert len(failed) == 3 and all(v.verdict is None for v in failed)
    reasons = " ".join(v.error or "" for v in failed).lower()
    assert "refus" in reasons and ("truncat" in reasons or "length" in reasons or "max" in reasons)
    assert sorted(judge.broke) == sorted(broken)

    # k samples that disagree: each pair's score is the mean of its five recorded ratings (docs/method.md, s. 13)
    scores = [e.data_as(JudgeValidationScore) for e in home.events.read(stream) if e.type == ValidationEvent.SCORE]
    by_pair: dict[tuple[str, str, str], dict[int, float]] = {}
    for s in scores:
        if s.rating is not None:
            by_pair.setdefault((s.suite_digest, s.item_id, s.pair), {})[s.sample] = s.rating
    assert all(sorted(r) == list(range(SAMPLES)) for r in by_pair.values())
    assert any(len(set(r.values())) > 1 for r in by_pair.values())
    for f in first["families"]:  # an unanswered item is neither decided nor right: it only lowers the share decided
        assert f["accuracy_decided"] == 1.0 and f["decided"] == f["items"] - f["unanswered"]
        assert f["decided_share"] == pytest.approx(f["decided"] / f["items"])

    # the next run asks the three unanswered again (answered now); after it, every answer comes from the log
    sent = len(fake.server.requests)
    code, again = _json(capsys, root, *validate, "--format", "json")
    assert code == 0 and len(fake.server.requests) == sent + 3 and again["passed"] is True
    assert sum(f["unanswered"] for f in again["held_out"][0]["families"]) == 0
    code, _ = _json(capsys, root, *validate, "--format", "json")
    assert code == 0 and len(fake.server.requests) == sent + 3

    # 4. Primary without --force (it passed held out), then an audit judged by it, reported as validated.
    capsys.readouterr()
    assert lhl(root, "judge", "primary", JUDGE) == 0
    assert capsys.readouterr().err == ""
    assert lhl(root, "audit", "--models", "lexical", "--runs", "1", "--contracts", "3") == 0
    judged = [c for c in (e.data_as(ModelCall) for e in home.events.read() if e.type == "model.call")
              if c.stage == JUDGE_STAGE]
    assert judged and {c.model for c in judged} == {JUDGE}
    code, report = _json(capsys, root, "report", "--format", "json", "--resamples", "50")
    assert code == 0 and report["scope"]["judge"] == JUDGE
    assert [r["judge_validated"] for r in report["leaderboard"]] == [True]
    assert not [c for c in report["verdict"]["caveats"] if c["kind"].startswith("judge_")]
