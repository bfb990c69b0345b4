"""Evidence that holds: `lhl verify` covers everything a result is computed from, the checkpoint notices
streams cut short or rolled back, reads check what they read, and imports are all or nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import threading
from pathlib import Path

import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from lhl_platform.clause.extraction.engine import extraction_stream
from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionFailed
from lhl_platform.clause.importer import import_outcomes
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.events.cache_key import cache_key, key_path
from lhl_platform.events.checkpoint import Checkpoint
from lhl_platform.events.integrity import DamagedLogError, read_manifest
from lhl_platform.events.log import EventLog, StreamWriter, stream_head
from lhl_platform.events.payloads import EventType
from lhl_platform.events.verify import verify_home
from lhl_platform.home import Home
from lhl_platform.registry import add_model, list_models
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes

EXTRACT = extraction_stream("lexical", 1)


def _outcomes(path: Path, contract: str, model: str = "m") -> Path:
    return write_outcomes(path, [outcome(model, 1, contract, c, "TN") for c in CLAUSE_TYPES])


def _contract(home: Path) -> str:
    first = pq.read_table(next((home / "corpora").glob("*/contracts.parquet")), columns=["contract_id"])
    return str(first.column(0)[0].as_py())


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home holding one of each kind of stored evidence: a corpus (two Parquet files and the `corpus`
    stream), a registry with two models, a subset, an extraction stream and an import. The warehouse is
    not built yet, so the first report over a copy reads (and checks) everything."""
    root = tmp_path_factory.mktemp("evidence")
    home = root / "home"
    assert main(["--home", str(home), "ingest", "cuad", str(DEMO_DIR)]) == 0
    h = Home.resolve(home)
    add_model(h, ModelSpec(name="lexical", provider="offline", model_id="lexical"))
    add_model(h, ModelSpec(name="rubric2", provider="offline", model_id="rubric", role="judge"))
    assert main(["--home", str(home), "subset", "create", "few", "--size", "3"]) == 0
    with h.events.writer(EXTRACT) as writer:
        for i in range(3):
            writer.append(ExtractionEvent.FAILED, f"c{i}", f"failed:{i}",
                          ExtractionFailed(model="lexical", run=1, contract_id=f"c{i}", stage="call", reason="x"))
    import_outcomes(h, _outcomes(root / "outcomes.csv", _contract(home)))
    return home


@pytest.fixture
def home(template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(template, copy)
    return copy


def _segment(home: Path, stream: str, index: int = 0) -> Path:
    return home / "events" / stream / read_manifest(home / "events" / stream)[index].name


def _import_stream(home: Path) -> str:
    return next(p.name for p in (home / "events").iterdir() if p.name.startswith("import."))


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _stored(home: Path, kind: str) -> Path:
    corpus = next((home / "corpora").iterdir())
    return {
        "corpus contracts.parquet": corpus / "contracts.parquet",
        "corpus oracle.parquet": corpus / "oracle.parquet",
        "corpus stream segment": _segment(home, "corpus"),
        "registry segment": _segment(home, "registry", 1),
        "subset segment": _segment(home, "subsets"),
        "extraction segment": _segment(home, EXTRACT),
        "import segment": _segment(home, _import_stream(home)),
    }[kind]


def _cli(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    out, err = capsys.readouterr()
    return code, out, err


def _name(home: Path, path: Path) -> str:
    return str(path.relative_to(home))


STORED = ["corpus contracts.parquet", "corpus oracle.parquet", "corpus stream segment", "registry segment",
          "subset segment", "extraction segment", "import segment"]


# --- verify covers everything a result is computed from -----------------------------------------------


def test_an_intact_home_verifies_and_reports_every_stream_head(home, capsys):
    report = verify_home(Home.resolve(home))
    assert report.ok, report.problems
    assert report.corpora == 1 and report.corpus_files == 2
    log = EventLog(home / "events")
    assert set(report.heads) == {"corpus", "registry", "subsets", EXTRACT, _import_stream(home)}
    for stream, head in report.heads.items():
        assert stream_head(log, stream) == head
    assert report.heads["registry"][0] == 2 and report.unanchored == ()
    code, out, _ = _cli(capsys, home, "verify")
    assert code == 0 and "5 streams" in out and "1 corpora, 2 files" in out


@pytest.mark.parametrize("kind", STORED)
def test_one_changed_byte_in_any_stored_file_is_named_by_verify(home, capsys, kind):
    victim = _stored(home, kind)
    _flip(victim)
    report = verify_home(Home.resolve(home))
    assert not report.ok and _name(home, victim) in report.problem
    code, _, err = _cli(capsys, home, "verify")
    assert code == 1 and err.count("\n") == 1 and _name(home, victim) in err


def test_a_corpus_folder_no_event_records_is_named(home):
    corpus = next((home / "corpora").iterdir())
    shutil.copytree(corpus, home / "corpora" / "0123456789abcdef")
    report = verify_home(Home.resolve(home))
    assert not report.ok and "corpora/0123456789abcdef: no corpus.ingested event" in report.problem


def test_a_recorded_corpus_whose_folder_is_gone_is_named(home):
    corpus = next((home / "corpora").iterdir())
    shutil.rmtree(corpus)
    report = verify_home(Home.resolve(home))
    assert not report.ok and f"corpora/{corpus.name}" in report.problem and "folder is missing" in report.problem


def test_a_file_added_to_a_stored_corpus_is_named(home):
    corpus = next((home / "corpora").iterdir())
    shutil.copy(corpus / "oracle.parquet", corpus / "extra.parquet")
    report = verify_home(Home.resolve(home))
    assert not report.ok and "extra.parquet: not recorded" in report.problem


# --- the checkpoint: truncation, rollback and removal ----------------------------------------------------


def _drop_last_segment(home: Path, stream: str) -> None:
    """Remove a stream's last segment and its manifest entry: what is left is still a valid chain."""
    stream_dir = home / "events" / stream
    entries = read_manifest(stream_dir)
    (stream_dir / entries[-1].name).unlink()
    doc = json.loads((stream_dir / "manifest.json").read_text())
    doc["segments"] = doc["segments"][:-1]
    (stream_dir / "manifest.json").write_text(json.dumps(doc))


def test_a_registry_cut_back_to_its_first_model_is_named(home, capsys):
    _drop_last_segment(home, "registry")
    report = verify_home(Home.resolve(home))
    assert not report.ok
    assert "stream registry has 1 events but the checkpoint recorded 2" in report.problem
    assert "truncated or rolled back" in report.problem
    code, _, err = _cli(capsys, home, "verify")
    assert code == 1 and err.count("\n") == 1 and "registry" in err


def test_readers_and_writers_refuse_a_stream_behind_its_checkpoint(home):
    _drop_last_segment(home, "registry")
    h = Home.resolve(home)
    with pytest.raises(DamagedLogError, match="registry.*truncated or rolled back.*lhl verify"):
        list_models(h)
    with pytest.raises(DamagedLogError):  # a writer would otherwise re-grow the stream over the gap
        add_model(h, ModelSpec(name="third", provider="offline", model_id="lexical"))
    assert len(read_manifest(home / "events" / "registry")) == 1


def test_a_stream_put_back_to_an_older_copy_is_named(home, tmp_path):
    h = Home.resolve(home)
    older = tmp_path / "registry-backup"
    shutil.copytree(home / "events" / "registry", older)
    add_model(h, ModelSpec(name="third", provider="offline", model_id="lexical"))
    shutil.rmtree(home / "events" / "registry")
    shutil.copytree(older, home / "events" / "registry")
    report = verify_home(h)
    assert not report.ok and "stream registry has 2 events but the checkpoint recorded 3" in report.problem


def test_a_rolled_back_stream_that_grew_again_differs_from_its_checkpointed_head(home):
    # Rolled back and then extended with other events up to the same length: the count matches,
    # the chain hash at that point does not.
    stream_dir = home / "events" / "registry"
    entries = read_manifest(stream_dir)
    forged = EventLog(home / "events")
    _drop_last_segment(home, "registry")
    checkpoint = (home / "events" / "CHECKPOINT").read_bytes()
    (home / "events" / "CHECKPOINT").write_bytes(b"")  # let the writer through, then put it back
    forged.append("registry", EventType.MODEL_REGISTERED, "other", "other-key",
                  ModelSpec(name="other", provider="offline", model_id="lexical"))
    (home / "events" / "CHECKPOINT").write_bytes(checkpoint)
    assert read_manifest(stream_dir)[-1].end == entries[-1].end
    report = verify_home(Home.resolve(home))
    assert not report.ok and "stream registry: event seq 1 differs from its head in the checkpoint" in report.problem


def test_a_removed_stream_is_named_even_with_its_index_line(home):
    shutil.rmtree(home / "events" / "subsets")
    assert "stream subsets was removed" in verify_home(Home.resolve(home)).problem
    index = home / "events" / "STREAMS"
    index.write_text("".join(f"{s}\n" for s in index.read_text().split() if s != "subsets"))
    report = verify_home(Home.resolve(home))
    assert not report.ok and "stream subsets was removed" in report.problem


def test_the_checkpoint_is_itself_a_chain(home):
    path = home / "events" / "CHECKPOINT"
    lines = path.read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[1])
    entry["time"] = "2000-01-01T00:00:00+00:00"
    lines[1] = json.dumps(entry, separators=(",", ":"), sort_keys=True).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    report = verify_home(Home.resolve(home))
    assert not report.ok and "events/CHECKPOINT: line 3 does not chain" in report.problem


def test_a_removed_checkpoint_is_named(home):
    (home / "events" / "CHECKPOINT").unlink()
    report = verify_home(Home.resolve(home))
    assert not report.ok and "events/CHECKPOINT: missing or empty" in report.problem


def test_a_checkpoint_line_torn_by_a_crash_never_counted_and_is_cut_by_the_next_writer(home):
    path = home / "events" / "CHECKPOINT"
    lines = len(path.read_bytes().splitlines())
    with path.open("ab") as fh:
        fh.write(b'{"count":9,"head":"ab')  # the writer died mid-line
    assert verify_home(Home.resolve(home)).ok
    add_model(Home.resolve(home), ModelSpec(name="third", provider="offline", model_id="lexical"))
    assert path.read_bytes().endswith(b"\n") and len(path.read_bytes().splitlines()) == lines + 1
    assert verify_home(Home.resolve(home)).ok


def test_verify_export_prints_the_checkpoint_head(home, capsys):
    code, out, _ = _cli(capsys, home, "verify", "--export")
    assert code == 0
    head = json.loads(out)
    last = (home / "events" / "CHECKPOINT").read_bytes().splitlines()[-1]
    assert head["checkpoint_hash"] == hashlib.sha256(last).hexdigest()
    assert head["checkpoint_entries"] == len((home / "events" / "CHECKPOINT").read_bytes().splitlines())
    assert head["time"] == json.loads(last)["time"]
    log = EventLog(home / "events")
    assert head["streams"]["registry"] == dict(zip(("count", "head"), stream_head(log, "registry"), strict=True))
    assert set(head["streams"]) == set(log.streams())


def test_export_anchors_streams_whose_newest_head_is_not_in_the_checkpoint(home, capsys):
    # A writer that died between committing its segment and writing its checkpoint line.
    path = home / "events" / "CHECKPOINT"
    lines = path.read_bytes().splitlines(keepends=True)
    stream = json.loads(lines[-1])["stream"]
    path.write_bytes(b"".join(lines[:-1]))
    report = verify_home(Home.resolve(home))
    assert report.ok and report.unanchored == (stream,)
    head = json.loads(_cli(capsys, home, "verify", "--export")[1])
    assert head["streams"][stream]["count"] == report.heads[stream][0]
    assert verify_home(Home.resolve(home)).unanchored == ()


def test_export_refuses_a_home_that_does_not_verify(home, capsys):
    _flip(_stored(home, "registry segment"))
    code, out, err = _cli(capsys, home, "verify", "--export")
    assert code == 1 and out == "" and err.count("\n") == 1


def test_concurrent_writers_interleave_whole_checkpoint_lines(tmp_path):
    log = EventLog(tmp_path / "events")

    def write(stream: str) -> None:
        with log.writer(stream, flush_every=1) as writer:
            for i in range(15):
                writer.append(ExtractionEvent.FAILED, f"c{i}", f"k{i}",
                              ExtractionFailed(model="a", run=1, contract_id=f"c{i}", stage="call", reason="x"))

    threads = [threading.Thread(target=write, args=(f"s{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    scan = Checkpoint(log.root).scan()
    assert scan.problem == "" and scan.head.entries == 60
    assert scan.head.streams == {f"s{n}": stream_head(log, f"s{n}") for n in range(4)}


# --- reads check what they read --------------------------------------------------------------------------


def _damage(home: Path, kind: str) -> str:
    """Damage the home; returns what the one-line error must name."""
    if kind == "changed segment byte":
        victim = _segment(home, EXTRACT)
        _flip(victim)
        return _name(home, victim)
    if kind == "truncated segment":
        victim = _segment(home, _import_stream(home))
        _cut(victim)
        return _name(home, victim)
    if kind == "corrupt manifest":
        victim = home / "events" / "subsets" / "manifest.json"
        victim.write_text('{"segments": [{"name": "0000000000.parquet"')
        return _name(home, victim)
    if kind == "garbled STREAMS":
        (home / "events" / "STREAMS").write_bytes(b"corpus\nregistry\n\x00\x9f\x92garbage\n")
        return "events/STREAMS"
    if kind == "registry cut back":
        _drop_last_segment(home, "registry")
        return "registry"
    if kind == "corrupt oracle":
        victim = _stored(home, "corpus oracle.parquet")
        _cut(victim)
        return _name(home, victim)
    raise AssertionError(kind)


DAMAGE = ["changed segment byte", "truncated segment", "corrupt manifest", "garbled STREAMS",
          "registry cut back", "corrupt oracle"]


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_report_over_damaged_evidence_fails_with_one_line(home, capsys, kind):
    named = _damage(home, kind)
    code, out, err = _cli(capsys, home, "report")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("lhl: ") and named in err and "lhl verify" in err


def test_a_report_from_an_up_to_date_warehouse_notices_a_segment_changed_since(home, capsys):
    assert _cli(capsys, home, "report")[0] == 0
    _damage(home, "changed segment byte")
    assert _cli(capsys, home, "report")[0] == 1


def test_repeated_reads_do_not_rehash_unchanged_segments(home, monkeypatch):
    import lhl_platform.events.integrity as integrity

    settled = 1_000_000_000  # long ago: the files are no longer being written
    for path in [*(home / "events").glob("*/*.parquet"), *(home / "corpora").glob("*/*.parquet")]:
        os.utime(path, ns=(settled, settled))
    hashed: list[Path] = []
    real = integrity.file_sha256
    monkeypatch.setattr(integrity, "file_sha256", lambda p: hashed.append(p) or real(p))
    log = EventLog(home / "events")
    monkeypatch.setattr(integrity, "_SETTLE_NS", 0)  # ctime is now: accept it for the test
    first = log.segments(corpora_dir=home / "corpora")
    assert len(hashed) == len(first) + 2
    hashed.clear()
    assert log.segments(corpora_dir=home / "corpora") == first and hashed == []
    # A changed file is hashed again, even with its modification time put back.
    victim = _segment(home, EXTRACT)
    _flip(victim)
    os.utime(victim, ns=(settled, settled))
    with pytest.raises(DamagedLogError, match=_name(home, victim)):
        log.segments()
    assert hashed == [victim]


def _forge_cache(home: Path, victim: Path, recorded: str, key: bytes | None) -> None:
    """Put the altered file's stat beside its old hash into the cache, sealed with `key` (None: unsealed, as
    the cache was before seals)."""
    st = victim.stat()
    entry = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, recorded]
    name = _name(home, victim)
    if key is not None:
        entry.append(hmac.new(key, json.dumps([name, *entry]).encode(), hashlib.sha256).hexdigest())
    (home / "events" / ".segment-hashes.json").write_text(json.dumps({name: entry}))


@pytest.mark.parametrize("seal", ["none", "guessed key"])
def test_a_forged_cache_does_not_fool_readers(home, seal):
    victim = _segment(home, EXTRACT)
    recorded = read_manifest(victim.parent)[0].sha256
    _flip(victim)
    _forge_cache(home, victim, recorded, None if seal == "none" else b"\0" * 32)
    with pytest.raises(DamagedLogError, match=_name(home, victim)):
        EventLog(home / "events").segments([EXTRACT])
    report = verify_home(Home.resolve(home))
    assert not report.ok and _name(home, victim) in report.problem


def test_whoever_can_read_the_cache_key_can_forge_the_cache_and_only_verify_hashes_every_byte(home):
    # The key lives outside the home (cache_key.py): writing the home is not enough, reading the key is.
    key = cache_key()
    assert key is not None and not str(key_path()).startswith(str(home))
    victim = _segment(home, EXTRACT)
    recorded = read_manifest(victim.parent)[0].sha256
    _flip(victim)
    _forge_cache(home, victim, recorded, key)
    assert EventLog(home / "events").segments([EXTRACT]) == [victim]
    report = verify_home(Home.resolve(home))
    assert not report.ok and _name(home, victim) in report.problem


# --- imports are all or nothing --------------------------------------------------------------------------


def _snapshot(home: Path) -> dict[str, bytes]:
    events = home / "events"
    return {str(p.relative_to(events)): p.read_bytes() if p.is_file() else b"/"
            for p in sorted(events.rglob("*")) if p.name not in {".lock", ".segment-hashes.json"}}


def test_a_truncated_segment_stops_an_import_before_anything_is_written(home, tmp_path, capsys):
    named = _damage(home, "truncated segment")
    before = _snapshot(home)
    path = _outcomes(tmp_path / "again.csv", _contract(home), model="other")
    code, _, err = _cli(capsys, home, "import", "outcomes", str(path))
    assert code == 1 and err.count("\n") == 1 and named in err
    assert _snapshot(home) == before


def test_reimporting_into_its_own_damaged_stream_writes_nothing(home, capsys, tmp_path):
    stream = _import_stream(home)
    _cut(_segment(home, stream))
    before = _snapshot(home)
    same = _outcomes(tmp_path / "same.csv", _contract(home))  # the same bytes: the same import stream
    with pytest.raises(DamagedLogError, match=stream):
        import_outcomes(Home.resolve(home), same)
    assert _snapshot(home) == before


def test_a_cut_parquet_input_is_one_line_and_nothing_is_written(home, tmp_path, capsys):
    csv_path = _outcomes(tmp_path / "o.csv", _contract(home), model="cut")
    parquet = tmp_path / "o.parquet"
    pq.write_table(pacsv.read_csv(csv_path), parquet)
    _cut(parquet)
    before = _snapshot(home)
    code, _, err = _cli(capsys, home, "import", "outcomes", str(parquet))
    assert code == 1 and err.count("\n") == 1 and "o.parquet" in err
    assert _snapshot(home) == before


def test_an_error_in_the_middle_of_an_import_commits_no_segment(home, tmp_path, monkeypatch):
    path = _outcomes(tmp_path / "o.csv", _contract(home), model="half")
    real = StreamWriter.append
    calls = 0

    def failing(self, *args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == 30:
            raise OSError("disk full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(StreamWriter, "append", failing)
    before = set(Checkpoint(home / "events").anchors())
    with pytest.raises(OSError, match="disk full"):
        import_outcomes(Home.resolve(home), path)
    monkeypatch.undo()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    stream_dir = home / "events" / f"import.{digest}"
    assert not list(stream_dir.glob("*.parquet")) and read_manifest(stream_dir) == []
    assert set(Checkpoint(home / "events").anchors()) == before
    assert verify_home(Home.resolve(home)).ok
    assert import_outcomes(Home.resolve(home), path) == (41, 41)  # and it can simply be run again


def test_an_atomic_writer_commits_one_segment_however_many_events(tmp_path):
    log = EventLog(tmp_path / "events")
    with log.writer("s", flush_every=5, atomic=True) as writer:
        for i in range(23):
            writer.append(ExtractionEvent.FAILED, f"c{i}", f"k{i}",
                          ExtractionFailed(model="a", run=1, contract_id=f"c{i}", stage="call", reason="x"))
    assert [(e.first_seq, e.count) for e in read_manifest(log.root / "s")] == [(0, 23)]


def test_the_ingest_stream_checked_by_reads_is_the_one_ingest_writes():
    from lhl_platform.corpus.store import CORPUS_STREAM
    from lhl_platform.events.integrity import INGEST_STREAM

    assert INGEST_STREAM == CORPUS_STREAM
