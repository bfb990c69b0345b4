"""What every reader of the event log checks before it trusts a file, and the cache that keeps that cheap.

A reader (the warehouse build, a writer reopening its stream, `EventLog.read`) takes a stream's segments
from its manifest, never from a directory listing, and checks each segment's bytes against the SHA-256
the manifest recorded. Anything that does not hold (a garbled `STREAMS` index, an unreadable manifest, a
missing or altered segment, a stream that is behind its checkpointed head) raises `DamagedLogError`,
whose message is one line naming the file and pointing to `lhl verify`.

Hashing every segment on every read would make each report read the whole log twice, so the hashes of
segments that matched are cached in `<events>/.segment-hashes.json`, keyed by the file's path, size,
modification and change times and inode. A file changed in any ordinary way is hashed again. Each entry
is sealed with an HMAC whose key lives outside the home (`cache_key.py`), so writing a forged entry
into the cache needs more than write access to the home. The cache only saves work for readers:
`lhl verify` never consults it and always hashes every byte.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lhl_platform.events.cache_key import cache_key
from lhl_platform.events.model import GENESIS
from lhl_platform.files import write_atomic

STREAM_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:=-]{0,200}$")
SEGMENT_NAME = re.compile(r"^[0-9]{10,}\.parquet$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
STREAMS_INDEX = "STREAMS"
# The stream `lhl ingest` records corpora in (the corpus layer's CORPUS_STREAM; a test keeps them equal).
INGEST_STREAM = "corpus"
HASH_CACHE = ".segment-hashes.json"
RECORDED_CORPORA = ".recorded-corpora.json"  # what the ingest stream recorded of each corpus (kept_reading)
# A file whose timestamps are this recent may still change within the same clock tick without its
# stat changing, so its hash is not cached yet (the same caution git applies to its index).
_SETTLE_NS = 2_000_000_000


class DamagedLogError(RuntimeError):
    """A file of the event log (or a stored corpus) is not what was recorded; the message is one line."""

    def __init__(self, where: str, what: str) -> None:
        self.where = where
        self.what = " ".join(what.split())
        super().__init__(f"{where}: {self.what}; the stored evidence is damaged or was altered "
                         "(run `lhl verify` for the full check)")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def rel(root: Path, path: Path) -> str:
    """A path as the user knows it: relative to the home (the event log root's parent)."""
    base = root.parent
    return str(path.relative_to(base)) if base in path.parents else str(path)


@dataclass
class SegmentEntry:
    name: str
    sha256: str
    first_seq: int
    count: int
    last_chain: str

    @property
    def end(self) -> int:
        """The stream's event count once this segment is included."""
        return self.first_seq + self.count


def _entry(raw: Any) -> SegmentEntry:
    if not isinstance(raw, dict) or set(raw) != {"name", "sha256", "first_seq", "count", "last_chain"}:
        raise ValueError("a segment entry does not have the expected fields")
    name, sha, first, count, last = (raw[k] for k in ("name", "sha256", "first_seq", "count", "last_chain"))
    if not (isinstance(name, str) and SEGMENT_NAME.fullmatch(name)):
        raise ValueError(f"bad segment name {name!r}")
    if not (isinstance(sha, str) and HEX64.fullmatch(sha) and isinstance(last, str) and HEX64.fullmatch(last)):
        raise ValueError(f"bad hash in the entry for {name}")
    if type(first) is not int or type(count) is not int or first < 0 or count < 1:
        raise ValueError(f"bad sequence numbers in the entry for {name}")
    return SegmentEntry(name=name, sha256=sha, first_seq=first, count=count, last_chain=last)


MANIFEST = "manifest.json"
MANIFEST_LOG = "manifest.log"


def _load_manifest_log(stream_dir: Path, root: Path) -> list[SegmentEntry]:
    """The entries appended since the manifest was last compacted, one JSON line each. A line is committed
    once its newline is written: bytes after the last newline are a line torn by a writer that died
    mid-write, which never counted."""
    path = stream_dir / MANIFEST_LOG
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise DamagedLogError(rel(root, path), f"unreadable manifest log ({exc})") from None
    entries: list[SegmentEntry] = []
    for number, raw in enumerate(data[: data.rfind(b"\n") + 1].splitlines(), 1):
        try:
            entries.append(_entry(json.loads(raw)))
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise DamagedLogError(rel(root, path), f"line {number} is not a segment entry ({exc})") from None
    return entries


def parse_manifest(stream_dir: Path, root: Path) -> tuple[list[SegmentEntry], bool]:
    """The stream's committed segments and whether its writer anchored the stream in the checkpoint.

    A stream's manifest has two parts: `manifest.json`, the segment list as of the last compaction, and
    `manifest.log`, one line appended per segment committed since (a commit appends a line and rewrites
    nothing). A writer folds the log into `manifest.json` when it closes or reopens the stream. The log is
    read first: a compaction replaces `manifest.json` before it removes the log, so whatever a reader sees
    in between is a prefix of the stream, and an entry present in both parts is taken once."""
    logged = _load_manifest_log(stream_dir, root)
    path = stream_dir / MANIFEST
    if not path.exists():
        if not logged:
            return [], False
        doc: dict[str, Any] = {"segments": [], "anchored": True}
    else:
        try:
            loaded = json.loads(path.read_bytes())
            if not isinstance(loaded, dict) or not isinstance(loaded.get("segments"), list):
                raise ValueError("no segment list")
            doc = loaded
        except (ValueError, OSError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise DamagedLogError(rel(root, path), f"unreadable manifest ({exc})") from None
    try:
        entries = [_entry(raw) for raw in doc["segments"]]
    except ValueError as exc:
        raise DamagedLogError(rel(root, path), f"unreadable manifest ({exc})") from None
    known = {e.name: e for e in entries}
    for entry in logged:
        seen = known.get(entry.name)
        if seen is None:
            entries.append(entry)
            known[entry.name] = entry
        elif seen != entry:
            raise DamagedLogError(rel(root, stream_dir / MANIFEST_LOG),
                                  f"its entry for {entry.name} differs from the one in {MANIFEST}")
    return entries, doc.get("anchored") is True or bool(logged)


def read_manifest(stream_dir: Path, root: Path | None = None) -> list[SegmentEntry]:
    return parse_manifest(stream_dir, root or stream_dir.parent)[0]


def _entry_line(entry: SegmentEntry) -> str:
    return json.dumps(entry.__dict__, separators=(",", ":"))


def write_manifest(stream_dir: Path, entries: list[SegmentEntry]) -> None:
    """Replace `manifest.json` atomically with the whole segment list (one entry a line) and drop the log it
    now holds; `anchored` says this stream's heads go to the checkpoint. Done once per writer session."""
    body = ",\n".join(_entry_line(e) for e in entries)
    tmp = stream_dir / f"{MANIFEST}.tmp"
    tmp.write_text(f'{{"anchored": true, "segments": [\n{body}\n]}}\n' if entries
                   else '{"anchored": true, "segments": []}\n')
    os.replace(tmp, stream_dir / MANIFEST)
    (stream_dir / MANIFEST_LOG).unlink(missing_ok=True)


def append_manifest(stream_dir: Path, entry: SegmentEntry) -> None:
    """Commit one segment: append its entry to the manifest log (a single write of one whole line)."""
    fd = os.open(stream_dir / MANIFEST_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (_entry_line(entry) + "\n").encode())
    finally:
        os.close(fd)


def repair_manifest_log(stream_dir: Path) -> bool:
    """For a writer reopening the stream: cut a torn last line off the log (its segment never counted).
    Returns whether a log is left to compact."""
    path = stream_dir / MANIFEST_LOG
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with path.open("r+b") as fh:
            fh.truncate(end)
    return True


def read_streams(root: Path) -> list[str]:
    """The `STREAMS` index: every stream ever created, in creation order; a garbled line is damage."""
    index = root / STREAMS_INDEX
    if not index.exists():
        return []
    try:
        lines = index.read_bytes().decode("utf-8").splitlines()
    except (UnicodeDecodeError, OSError) as exc:
        raise DamagedLogError(rel(root, index), f"unreadable stream index ({exc})") from None
    for number, line in enumerate(lines, 1):
        if line and not STREAM_PATTERN.fullmatch(line):
            raise DamagedLogError(rel(root, index), f"line {number} is not a stream name")
    return list(dict.fromkeys(line for line in lines if line))


@dataclass(frozen=True)
class Anchor:
    """One checkpointed head of a stream: it had `count` events and the last one's chain hash was `head`."""

    line: int
    stream: str
    count: int
    head: str
    time: str


def anchor_problem(stream: str, entries: list[SegmentEntry], anchor: Anchor) -> str:
    """Why the committed segments disagree with a checkpointed head ('' when they agree).

    Heads are checkpointed when a segment is committed, so each one must be the end of a segment."""
    have = entries[-1].end if entries else 0
    if anchor.count > have:
        return (f"stream {stream} has {have} events but the checkpoint recorded {anchor.count} "
                f"(line {anchor.line}): truncated or rolled back")
    if not any(e.end == anchor.count and e.last_chain == anchor.head for e in entries):
        return (f"stream {stream} differs from its head in the checkpoint at {anchor.count} events "
                f"(line {anchor.line}): rewritten or rolled back")
    return ""


class HashCache:
    """Segment hashes already seen to match, keyed by stat; one small JSON file, replaced atomically. Each
    entry is `[size, mtime_ns, ctime_ns, inode, sha256, seal]`; one without a valid seal is not trusted."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / HASH_CACHE
        self._entries: dict[str, list[Any]] = {}
        self._dirty = False
        self._key = cache_key()  # None: no cache at all, every file is hashed
        try:
            loaded = json.loads(self.path.read_bytes()) if self._key is not None else None
            if isinstance(loaded, dict):
                self._entries = {k: v for k, v in loaded.items()
                                 if isinstance(v, list) and len(v) == 6 and self._valid(k, v)}
        except (OSError, ValueError):
            pass  # a missing or damaged cache only costs a rehash

    def _seal(self, key: str, entry: list[Any]) -> str:
        assert self._key is not None
        return hmac.new(self._key, json.dumps([key, *entry]).encode(), hashlib.sha256).hexdigest()

    def _valid(self, key: str, entry: list[Any]) -> bool:
        return isinstance(entry[5], str) and hmac.compare_digest(entry[5], self._seal(key, entry[:5]))

    def sha256(self, path: Path) -> str:
        st = path.stat()
        key = rel(self.root, path)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        cached = self._entries.get(key)
        if cached is not None and cached[:4] == stamp:
            return str(cached[4])
        digest = file_sha256(path)
        if self._key is not None and time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _SETTLE_NS:
            entry = [*stamp, digest]
            self._entries[key] = [*entry, self._seal(key, entry)]
            self._dirty = True
        return digest

    def save(self) -> None:
        if not self._dirty or not self.root.is_dir():
            return
        tmp = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex}.tmp")
        try:
            tmp.write_text(json.dumps(self._entries, separators=(",", ":")))
            os.replace(tmp, self.path)
        except OSError:
            # The cache is an optimisation; failing to save it is harmless, and so is failing to clean up
            # (on a read-only home even removing the temporary file fails).
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        self._dirty = False


def kept_reading(root: Path, name: str, source: str, read: Callable[[], Any]) -> Any:
    """`read()` (a JSON value read from files whose checked SHA-256 `source` names), or what it gave before for the
    same `source`: kept in `root/name` under an HMAC with the hash cache's key, so a reading altered in the home is
    read again, and without a key nothing is kept."""
    key = cache_key()
    if key is None:
        return read()

    def seal(value: Any) -> str:
        return hmac.new(key, f"{source}\n{json.dumps(value, sort_keys=True)}".encode(), hashlib.sha256).hexdigest()

    path = root / name
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        entry = json.loads(path.read_text())
        if entry["source"] == source and hmac.compare_digest(str(entry["seal"]), seal(entry["value"])):
            return entry["value"]
    value = read()
    with contextlib.suppress(OSError):  # an optimisation: a read-only home reads every time (OutputError is one)
        write_atomic(path, json.dumps({"source": source, "value": value, "seal": seal(value)}).encode())
    return value


def check_stream(root: Path, stream: str, anchors: list[Anchor], cache: HashCache,
                 listed: bool = True) -> list[SegmentEntry]:
    """A stream's committed segments, each checked against its manifest and the checkpoint.

    `listed` says whether `STREAMS` names the stream: a listed stream whose folder is gone is damage,
    an unlisted one simply has no events yet."""
    stream_dir = root / stream
    if not stream_dir.is_dir():
        if listed or anchors:
            raise DamagedLogError(rel(root, stream_dir), "stream listed in the log was removed")
        return []
    entries, _ = parse_manifest(stream_dir, root)
    expected = 0
    for entry in entries:
        if entry.first_seq != expected:
            raise DamagedLogError(rel(root, stream_dir / "manifest.json"),
                                  f"{entry.name} starts at seq {entry.first_seq}, expected {expected}")
        expected = entry.end
    for anchor in anchors:
        problem = anchor_problem(stream, entries, anchor)
        if problem:
            raise DamagedLogError(rel(root, stream_dir), problem)
    for entry in entries:
        path = stream_dir / entry.name
        if not path.is_file():
            raise DamagedLogError(rel(root, path), "segment listed in the manifest is missing")
        if cache.sha256(path) != entry.sha256:
            raise DamagedLogError(rel(root, path), "bytes differ from the SHA-256 in the stream's manifest")
    return entries


def stream_head_of(entries: list[SegmentEntry]) -> tuple[int, str]:
    return (entries[-1].end, entries[-1].last_chain) if entries else (0, GENESIS)


def check_corpora(root: Path, corpora_dir: Path, files: dict[str, dict[str, str]], cache: HashCache) -> None:
    """Each stored corpus file against the SHA-256 its latest ingest event recorded (`files`: corpus id ->
    file name -> hash). A corpus recorded before file hashes were kept (no hashes) cannot be checked
    here (verify names it); stored corpus files that no event records are damage, since results would
    rest on them."""
    if not corpora_dir.is_dir():
        return
    for folder in sorted(p for p in corpora_dir.iterdir() if p.is_dir()):
        recorded = files.get(folder.name)
        if recorded is None:
            if any(folder.glob("*.parquet")):
                raise DamagedLogError(rel(root, folder), "no corpus.ingested event records this corpus")
            continue
        for name, digest in sorted(recorded.items()):
            path = folder / name
            if Path(name).name != name or not path.is_file():
                raise DamagedLogError(rel(root, path), "corpus file recorded at ingest is missing")
            if cache.sha256(path) != digest:
                raise DamagedLogError(rel(root, path), "bytes differ from the SHA-256 recorded at ingest")
