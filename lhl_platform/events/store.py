"""Where the event log's segments are committed: the home's own folder (the default) or a shared store.

`EventLog` builds segments and checks them the same way whatever the store; the store decides what a commit
is and keeps `<home>/events/` readable as the folder layout (`log.py`'s docstring), so every reader (the
warehouse, `lhl verify`, a writer reopening its stream) reads local files, checked against their hashes:

- `FolderStore`: the folder *is* the log. A commit writes the segment, appends its manifest line (the commit
  point) and its checkpoint line; writers of one stream in one home take a POSIX lock (`log.py`).
- `SharedStore` (`store_shared.py`): segments are immutable objects in object storage named by their
  SHA-256, and the commit point is a row in PostgreSQL. `<home>/events/` is then a local mirror of the
  committed manifests, refreshed from the rows this home has not read yet.

`configured_store` picks one from the environment: `LHL_EVENTS_URL` (`s3://bucket/prefix`) and
`LHL_CATALOG_URL` (a PostgreSQL URL) attach the shared store; neither set is the folder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lhl_platform.events.checkpoint import Checkpoint
from lhl_platform.events.integrity import (
    STREAMS_INDEX,
    SegmentEntry,
    append_manifest,
    parse_manifest,
    read_streams,
    repair_manifest_log,
    write_manifest,
)

if TYPE_CHECKING:
    from lhl_platform.events.log import StreamWriter

EVENTS_URL_ENV = "LHL_EVENTS_URL"
CATALOG_URL_ENV = "LHL_CATALOG_URL"


class StreamMoved(Exception):
    """Another writer committed to the stream first: re-read its head and commit again on top of it."""


class SegmentStore(Protocol):
    """What `EventLog` and `StreamWriter` ask of the place segments are committed to."""

    def refresh(self, root: Path) -> None:
        """Bring the local folder up to date with what is committed (nothing to do for the folder)."""

    def create_stream(self, root: Path, stream: str) -> None:
        """Record the stream in the index of streams (once) before its first commit."""

    def open_stream(self, root: Path, stream: str) -> None:
        """Called with the stream's writer lock held, before the writer reads the stream's head."""

    def drop_uncommitted(self, root: Path, stream: str, committed: list[SegmentEntry]) -> None:
        """Set aside segment files of the stream that no manifest entry lists (a writer died before committing)."""

    def commit(self, writer: StreamWriter, entry: SegmentEntry, data: bytes) -> None:
        """Commit one segment (`data`, whose hash and place `entry` records); raises StreamMoved when the
        stream's head is no longer the writer's."""

    def compact(self, stream_dir: Path, entries: list[SegmentEntry]) -> None:
        """Fold the stream's manifest log into its manifest (a writer closing a session that committed)."""

    def verify(self, root: Path) -> tuple[list[str], int | None]:
        """What `lhl verify` checks beyond the local folder: (problems, objects read; None: none to read)."""


class FolderStore:
    """The home's folder is the log: the layout `log.py` describes, byte for byte."""

    def refresh(self, root: Path) -> None:
        return None

    def create_stream(self, root: Path, stream: str) -> None:
        if stream not in read_streams(root):
            with (root / STREAMS_INDEX).open("a") as index:
                index.write(stream + "\n")
        Checkpoint(root).touch()

    def open_stream(self, root: Path, stream: str) -> None:
        stream_dir = root / stream
        if repair_manifest_log(stream_dir):
            # The previous writer died before folding its manifest log into manifest.json: fold it now.
            write_manifest(stream_dir, parse_manifest(stream_dir, root)[0])

    def drop_uncommitted(self, root: Path, stream: str, committed: list[SegmentEntry]) -> None:
        # The manifest is the commit point: a segment file it does not list was written by a writer that
        # died before committing it (kill -9). Its events never counted; keep the file aside for forensics.
        names = {e.name for e in committed}
        stream_dir = root / stream
        for orphan in stream_dir.glob("*.parquet"):
            if orphan.name not in names:
                os.replace(orphan, stream_dir / f"{orphan.name}.uncommitted-{time.time_ns()}")

    def commit(self, writer: StreamWriter, entry: SegmentEntry, data: bytes) -> None:
        tmp = writer.dir / f".{entry.name}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, writer.dir / entry.name)
        append_manifest(writer.dir, entry)
        Checkpoint(writer.root).append(writer.stream, entry.end, entry.last_chain)

    def compact(self, stream_dir: Path, entries: list[SegmentEntry]) -> None:
        write_manifest(stream_dir, entries)

    def verify(self, root: Path) -> tuple[list[str], int | None]:
        return [], None


FOLDER = FolderStore()


def configured_store(root: Path) -> SegmentStore:
    """The store the environment names for the home whose event log is `root`: the folder unless both
    `LHL_EVENTS_URL` and `LHL_CATALOG_URL` are set (one without the other is refused)."""
    events_url = os.environ.get(EVENTS_URL_ENV, "").strip()
    catalog_url = os.environ.get(CATALOG_URL_ENV, "").strip()
    if not events_url and not catalog_url:
        return FOLDER
    if not events_url or not catalog_url:
        missing = EVENTS_URL_ENV if not events_url else CATALOG_URL_ENV
        raise ValueError(f"a shared event store needs both {EVENTS_URL_ENV} and {CATALOG_URL_ENV}; {missing} is "
                         "not set (unset both for the home's own folder)")
    from lhl_platform.events.store_shared import shared_store

    return shared_store(events_url, catalog_url)
