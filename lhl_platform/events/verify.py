"""`lhl verify`: recompute the evidence a result is computed from and name what does not match.

What is checked, from the files alone (no cache, every byte hashed):

- the checkpoint (`events/CHECKPOINT`): every line parses and carries the SHA-256 of the line before;
- the `STREAMS` index: readable; every stream folder is listed, every listed stream (and every stream
  the checkpoint has a head for) still exists;
- every stream, the registry and the subsets included: each manifest readable, each segment listed and
  present, its bytes matching the manifest's SHA-256, sequence numbers contiguous, each payload matching
  its hash, each event's chain hash matching its contents and its predecessor, each manifest's last
  chain hash matching the events;
- every stream against the checkpoint: each head recorded there must still be a prefix of the stream
  (same event count reached, same chain hash at that point). A stream cut short (its last segment and
  manifest entry removed) or put back to an older copy is behind its head and is named;
- the stored corpora: each `corpora/<id>/*.parquet` against the SHA-256 recorded in that corpus's latest
  `corpus.ingested` event; a corpus folder that no event records, or a recorded corpus whose folder is
  gone, is a problem too.

What this guarantees: any change, removal, reordering or truncation of stored evidence made after it was
written, by anyone who did not also rewrite every later hash consistently, is detected and named; and
a stream cannot be rolled back or cut short without contradicting the checkpoint.

What it cannot guarantee: the checkpoint lives in the same home, so someone able to rewrite every copy
(the segments, manifests, `STREAMS`, the checkpoint with a freshly computed chain) produces a home that
verifies. Nor can removing the checkpoint's newest lines together with the streams' newest events be
seen from inside the home. That is what `lhl verify --export` is for: it prints the checkpoint's head
(per-stream heads and the hash of the checkpoint's last line); kept somewhere the home's writers cannot
reach (a notary, a signed ticket, another system's log), it pins the state, and any later home whose
checkpoint does not extend it was rewritten.

The projection is checked like the events: given a `projection` check (the warehouse's, which sits above this
layer), `verify_home` also rebuilds the marts from the events once they have verified and names every stored
table that differs, and a stored build whose files differ from the digest recorded at its build.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from lhl_platform.domain.errors import flat
from lhl_platform.events.checkpoint import CheckpointHead
from lhl_platform.events.integrity import Anchor, DamagedLogError, file_sha256, parse_manifest, rel
from lhl_platform.events.kinds import payload_of
from lhl_platform.events.log import EventLog
from lhl_platform.events.model import GENESIS, Event, sha256_hex
from lhl_platform.events.payloads import CorpusIngested, EventType

_SHOWN = 5  # problems named in the one-line summary


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    streams: int
    segments: int
    events: int
    problem: str = ""  # the first problem
    problems: tuple[str, ...] = ()
    corpora: int = 0
    corpus_files: int = 0
    heads: Mapping[str, tuple[int, str]] = field(default_factory=dict)  # proven from the events
    checkpoint: CheckpointHead | None = None
    unanchored: tuple[str, ...] = ()  # streams with events newer than their last checkpointed head
    evidence_ok: bool = True  # the events and corpora verified (the problems, if any, are the projection's)
    projection: str | None = None  # what of the projection was compared, when it was
    objects: int | None = None  # a shared store's objects read back and compared (None: a folder home)

    def summary(self) -> str:
        """All problems on one line (the first few named, the rest counted)."""
        shown = "; ".join(self.problems[:_SHOWN])
        more = len(self.problems) - _SHOWN
        return shown + (f"; and {more} more" if more > 0 else "")


class HomeFolders(Protocol):
    """What verify needs of a home (the home layer sits above the events layer)."""

    @property
    def events(self) -> EventLog: ...

    @property
    def corpora_dir(self) -> Path: ...


@dataclass
class _Stream:
    segments: int = 0
    events: int = 0
    head: tuple[int, str] = (0, GENESIS)
    anchored: bool = False
    problem: str = ""
    chains: dict[int, str] = field(default_factory=dict)  # chain hash at each checkpointed position


H = TypeVar("H", bound=HomeFolders)


def verify_home(home: H, projection: Callable[[H], tuple[str | None, list[str]]] | None = None) -> VerifyReport:
    """Verify the home's event log and its stored corpora, then (given a check: what it compared, None when
    nothing is stored, and what differs) the projection built from them."""
    report = verify_log(home.events, corpora_dir=home.corpora_dir)
    if not report.ok:
        return replace(report, evidence_ok=False)
    if projection is None:
        return report
    compared, problems = projection(home)
    return replace(report, ok=not problems, problem=problems[0] if problems else "", problems=tuple(problems),
                   projection=compared)


def verify_log(log: EventLog, corpora_dir: Path | None = None) -> VerifyReport:
    """Verify the event log (and, given `corpora_dir`, the stored corpora); see the module docstring."""
    problems: list[str] = []
    try:
        log.refresh()  # a shared store's new commits into the local mirror (objects checked as they arrive)
    except DamagedLogError as exc:
        problems.append(f"{exc.where}: {exc.what}")
    # The checkpoint is read first: every head in it was committed to its stream before it was written.
    try:
        scan = log.checkpoint.scan()
    except DamagedLogError as exc:
        problems.append(f"{exc.where}: {exc.what}")
        scan = None
    if scan is not None and scan.problem:
        problems.append(scan.problem)
    anchors: dict[str, list[Anchor]] = {}
    for anchor in scan.anchors if scan is not None else []:
        anchors.setdefault(anchor.stream, []).append(anchor)
    try:
        streams = log.streams()
        indexed = True
    except DamagedLogError as exc:
        problems.append(f"{exc.where}: {exc.what}")
        streams, indexed = [], False
    listed = set(streams)
    folders = sorted(p.name for p in log.root.iterdir() if p.is_dir()) if log.root.is_dir() else []
    if indexed:
        problems += [f"stream {name} is not in the STREAMS index" for name in folders if name not in listed]
        problems += [f"stream {name} was removed (it has a head in the checkpoint but is not in STREAMS)"
                     for name in sorted(anchors) if name not in listed]
    else:
        streams = folders  # still check what is there

    segments = events = 0
    heads: dict[str, tuple[int, str]] = {}
    ingests: dict[str, CorpusIngested] = {}
    unanchored: list[str] = []
    any_anchored = False
    for name in streams:
        result = _verify_stream(log, name, anchors.get(name, []), ingests)
        segments, events = segments + result.segments, events + result.events
        any_anchored |= result.anchored and result.head[0] > 0
        if result.problem:
            problems.append(result.problem)
            continue
        heads[name] = result.head
        if result.head[0] > max((a.count for a in anchors.get(name, [])), default=0):
            unanchored.append(name)
    if any_anchored and scan is not None and scan.head.entries == 0 and not scan.problem:
        problems.append(f"{rel(log.root, log.checkpoint.path)}: missing or empty, but streams were anchored "
                        "in it (removed or replaced)")

    corpora = files = 0
    if corpora_dir is not None:
        corpora, files, found = _verify_corpora(log.root, corpora_dir, ingests)
        problems += found
    # A shared store: the catalog's chains, every committed object read back from the bucket, the mirror
    # against the catalog.
    found, objects = log.store.verify(log.root)
    problems += found
    return VerifyReport(ok=not problems, streams=len(streams), segments=segments, events=events,
                        problem=problems[0] if problems else "", problems=tuple(problems), corpora=corpora,
                        corpus_files=files, heads=heads, checkpoint=scan.head if scan is not None else None,
                        unanchored=tuple(unanchored), objects=objects)


def _verify_stream(log: EventLog, stream: str, anchors: list[Anchor],
                   ingests: dict[str, CorpusIngested]) -> _Stream:
    out = _Stream()
    stream_dir = log.root / stream
    if not stream_dir.is_dir():
        out.problem = f"stream {stream} was removed"
        return out
    try:
        entries, out.anchored = parse_manifest(stream_dir, log.root)
    except DamagedLogError as exc:
        out.problem = f"{exc.where}: {exc.what}"
        return out
    recorded = {e.name for e in entries}
    for path in sorted(stream_dir.glob("*.parquet")):
        if path.name not in recorded:
            out.problem = f"{rel(log.root, path)}: segment not in the stream's manifest"
            return out
    wanted = {a.count - 1 for a in anchors}
    prev, expected_seq = GENESIS, 0
    for entry in entries:
        path = stream_dir / entry.name
        where = rel(log.root, path)
        if not path.exists():
            out.problem = f"{where}: segment was removed"
            return out
        if file_sha256(path) != entry.sha256:
            out.problem = f"{where}: bytes differ from the recorded SHA-256"
            return out
        try:
            rows = pq.read_table(path).to_pylist()
        except (pa.ArrowException, OSError) as exc:  # a corrupted file is a finding, not a crash
            out.problem = f"{where}: unreadable ({flat(exc)})"
            return out
        if entry.first_seq != expected_seq:
            out.problem = (f"{where}: starts at seq {entry.first_seq}, expected {expected_seq} "
                           "(segment removed or reordered)")
            return out
        for row in rows:
            try:
                event = Event.model_construct(**row)
                bad = _check_event(event, prev, expected_seq, stream)
            except (TypeError, ValueError, AttributeError) as exc:
                bad = f"malformed event ({exc})"
                event = None
            if bad:
                label = f"event seq {event.seq} ({event.event_id})" if event is not None else f"row {expected_seq}"
                out.problem = f"{where}: {label}: {bad}"
                return out
            assert event is not None
            if expected_seq in wanted:
                out.chains[expected_seq] = event.chain_hash
            if event.type == EventType.CORPUS_INGESTED:
                try:
                    record = payload_of(event.type, event.payload)
                except ValueError as exc:
                    out.problem = f"{where}: event seq {event.seq}: payload does not validate ({exc})"
                    return out
                if isinstance(record, CorpusIngested):
                    ingests[record.corpus_id] = record
            prev, expected_seq = event.chain_hash, expected_seq + 1
            out.events += 1
        if entry.count != len(rows) or prev != entry.last_chain:
            out.problem = f"{where}: last chain hash differs from the manifest"
            return out
        out.segments += 1
    out.head = (expected_seq, prev)
    for anchor in anchors:
        if anchor.count > expected_seq:
            out.problem = (f"stream {stream} has {expected_seq} events but the checkpoint recorded "
                           f"{anchor.count} (line {anchor.line}): truncated or rolled back")
            return out
        if out.chains.get(anchor.count - 1) != anchor.head:
            out.problem = (f"stream {stream}: event seq {anchor.count - 1} differs from its head in the "
                           f"checkpoint (line {anchor.line}): rewritten or rolled back")
            return out
    return out


def _check_event(event: Event, prev: str, seq: int, stream: str) -> str:
    if event.stream != stream or event.seq != seq:
        return f"out of order (expected {stream} seq {seq})"
    if sha256_hex(event.payload) != event.payload_hash:
        return "payload does not match its hash"
    if event.prev_hash != prev:
        return "previous-hash link broken"
    if event.expected_chain(prev) != event.chain_hash:
        return "chain hash does not match the event's contents"
    return ""


def _verify_corpora(root: Path, corpora_dir: Path, ingests: dict[str, CorpusIngested]) -> tuple[int, int, list[str]]:
    """Each stored corpus file against the hashes its latest ingest event recorded."""
    problems: list[str] = []
    checked = 0
    folders = sorted(p for p in corpora_dir.iterdir() if p.is_dir()) if corpora_dir.is_dir() else []
    for folder in folders:
        where = rel(root, folder)
        record = ingests.get(folder.name)
        if record is None:
            problems.append(f"{where}: no corpus.ingested event records this corpus")
            continue
        if not record.files:
            problems.append(f"{where}: its corpus.ingested event records no file hashes (ingested by an "
                            "older version; ingest it again to record them)")
            continue
        present = {p.name for p in folder.glob("*.parquet")}
        for name in sorted(present | set(record.files)):
            path = folder / name
            if name not in record.files:
                problems.append(f"{rel(root, path)}: not recorded by the corpus's ingest event")
            elif Path(name).name != name or name not in present:
                problems.append(f"{rel(root, path)}: recorded at ingest but missing")
            elif file_sha256(path) != record.files[name]:
                problems.append(f"{rel(root, path)}: bytes differ from the SHA-256 recorded at ingest")
            else:
                checked += 1
    stored = {f.name for f in folders}
    problems += [f"{rel(root, corpora_dir / cid)}: recorded by a corpus.ingested event but the folder is missing"
                 for cid in sorted(ingests) if cid not in stored]
    return len(folders), checked, problems


def export_head(log: EventLog, report: VerifyReport) -> CheckpointHead:
    """The checkpoint head to notarise: first anchors every verified stream whose newest events are not
    in the checkpoint yet (a writer that died between its commit and its checkpoint line, or a home
    written before checkpoints existed), so the exported head covers everything that was verified."""
    if not report.ok:
        raise DamagedLogError("events", f"not exporting the head of a log that does not verify: {report.summary()}")
    for stream in report.unanchored:
        count, head = report.heads[stream]
        log.checkpoint.append(stream, count, head)
    scan = log.checkpoint.scan()
    if scan.problem:
        raise DamagedLogError(rel(log.root, log.checkpoint.path), scan.problem)
    return scan.head
