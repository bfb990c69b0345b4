"""The checkpoint: an append-only, hash-chained record of every stream's head, kept outside the streams.

A stream's own hash chain shows that nothing inside it was changed, but not that nothing was cut off
its end: remove the last segment together with its manifest entry, or put back an older copy of the
stream folder, and what is left is still a valid chain. The checkpoint is the anchor that notices.
Each time a writer commits a segment it appends one line to `<events>/CHECKPOINT`:

    {"count": 120, "head": "<chain hash of event 119>", "prev": "<SHA-256 of the previous line>",
     "stream": "registry", "time": "<UTC>"}

Every line carries the SHA-256 of the line before it (the first one carries 64 zeros), so the
checkpoint is itself a chain, like a transparency log's tree heads: the hash of its last line commits
to every head ever recorded, and `lhl verify --export` prints it for notarisation elsewhere. A line is
committed once its newline is written; a writer that finds a torn last line (its writer died
mid-write) cuts it off before appending. Appends take an exclusive lock on the file, so writers of
different streams in different processes interleave whole lines.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lhl_platform.events.integrity import HEX64, STREAM_PATTERN, Anchor, DamagedLogError, rel
from lhl_platform.events.model import GENESIS, canonical_json

CHECKPOINT = "CHECKPOINT"
_FIELDS = {"count", "head", "prev", "stream", "time"}
_TAIL = 1 << 16  # more than enough to hold the last whole line


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


@dataclass(frozen=True)
class CheckpointHead:
    """Where the checkpoint stands: its line count, the hash of its last line and each stream's head."""

    entries: int
    hash: str
    time: str
    streams: dict[str, tuple[int, str]]

    def as_json(self) -> dict[str, Any]:
        return {"time": self.time, "checkpoint_entries": self.entries, "checkpoint_hash": self.hash,
                "streams": {s: {"count": c, "head": h} for s, (c, h) in sorted(self.streams.items())}}


@dataclass(frozen=True)
class CheckpointScan:
    """The checkpoint as verify reads it: the anchors up to the first bad line, and what was wrong."""

    anchors: list[Anchor]
    head: CheckpointHead
    problem: str = ""


def _parse(raw: bytes) -> dict[str, Any]:
    doc = json.loads(raw)
    if not isinstance(doc, dict) or set(doc) != _FIELDS:
        raise ValueError("not a checkpoint entry")
    if not (isinstance(doc["stream"], str) and STREAM_PATTERN.fullmatch(doc["stream"])):
        raise ValueError("bad stream name")
    if type(doc["count"]) is not int or doc["count"] < 1:
        raise ValueError("bad event count")
    if not all(isinstance(doc[k], str) and HEX64.fullmatch(doc[k]) for k in ("head", "prev")):
        raise ValueError("bad hash")
    if not isinstance(doc["time"], str):
        raise ValueError("bad time")
    return doc


class Checkpoint:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / CHECKPOINT

    def exists(self) -> bool:
        return self.path.exists()

    def touch(self) -> None:
        """Create the file before any manifest says it is anchored, so a crash cannot leave that claim
        without its file."""
        if not self.path.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644))

    def _lines(self) -> list[bytes]:
        """Committed lines (each ended by a newline); a torn tail is not a line yet."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise DamagedLogError(rel(self.root, self.path), f"unreadable ({exc})") from None
        return data[: data.rfind(b"\n") + 1].splitlines()

    def append(self, stream: str, count: int, head: str) -> str:
        """Record a stream's head; returns the new checkpoint hash. Cheap: one locked append."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            start = max(0, size - _TAIL)
            tail = os.pread(fd, size - start, start)
            end = tail.rfind(b"\n") + 1
            if end == 0 and start > 0:
                raise DamagedLogError(rel(self.root, self.path), "last line is too long to be an entry")
            if end < len(tail):  # a writer died mid-line: that line never counted
                os.ftruncate(fd, start + end)
                tail = tail[:end]
            body = tail[:-1]
            cut = body.rfind(b"\n")
            if cut < 0 and start > 0:
                raise DamagedLogError(rel(self.root, self.path), "last line is too long to be an entry")
            previous = body[cut + 1:]
            entry = {"count": count, "head": head, "prev": line_hash(previous) if previous else GENESIS,
                     "stream": stream, "time": datetime.now(UTC).isoformat(timespec="microseconds")}
            line = canonical_json(entry).encode()
            os.write(fd, line + b"\n")
            return line_hash(line)
        finally:
            os.close(fd)  # releases the lock

    def anchors(self, streams: set[str] | None = None) -> dict[str, list[Anchor]]:
        """The recorded heads of the given streams (all when None), for readers and writers.

        Readers do not re-check the checkpoint's own chain (`scan` does, for verify); they only need
        the heads, and a line they cannot parse is damage."""
        wanted = None if streams is None else {f'"stream":{json.dumps(s)},'.encode() for s in streams}
        found: dict[str, list[Anchor]] = {}
        for number, raw in enumerate(self._lines(), 1):
            if wanted is not None and not any(w in raw for w in wanted):
                continue
            try:
                doc = _parse(raw)
            except ValueError:
                raise DamagedLogError(rel(self.root, self.path), f"line {number} is not a checkpoint entry") from None
            if streams is None or doc["stream"] in streams:
                found.setdefault(doc["stream"], []).append(
                    Anchor(number, doc["stream"], doc["count"], doc["head"], doc["time"]))
        return found

    def scan(self) -> CheckpointScan:
        """Every line parsed and its link to the previous line checked; stops at the first bad line."""
        anchors: list[Anchor] = []
        heads: dict[str, tuple[int, str]] = {}
        prev, last_time = GENESIS, ""
        where = rel(self.root, self.path)
        lines = self._lines()
        for number, raw in enumerate(lines, 1):
            try:
                doc = _parse(raw)
            except ValueError as exc:
                return CheckpointScan(anchors, CheckpointHead(number - 1, prev, last_time, heads),
                                      f"{where}: line {number} is not a checkpoint entry ({exc})")
            if doc["prev"] != prev:
                return CheckpointScan(anchors, CheckpointHead(number - 1, prev, last_time, heads),
                                      f"{where}: line {number} does not chain to the line before it "
                                      "(a line was changed, removed or inserted)")
            anchor = Anchor(number, doc["stream"], doc["count"], doc["head"], doc["time"])
            anchors.append(anchor)
            if anchor.count >= heads.get(anchor.stream, (0, ""))[0]:
                heads[anchor.stream] = (anchor.count, anchor.head)
            prev, last_time = line_hash(raw), anchor.time
        return CheckpointScan(anchors, CheckpointHead(len(lines), prev, last_time, heads))
