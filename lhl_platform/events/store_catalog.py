"""The shared store's catalog in PostgreSQL: each stream's manifest, and the commit point of every append.

`lhl_segments` holds one row per committed segment: the stream, the segment's first sequence number (`seq`),
its event count, SHA-256, the chain hash before it (`prev_head`) and after it (`last_chain`), when it was
committed, and its checkpoint line. `UNIQUE (stream, seq)` is what keeps two machines from forking a stream:
of two appenders that read the same head, one insert wins and the other fails, re-reads the head and
retries on top of it (`StreamMoved`).

`line` numbers the rows in commit order, globally: a commit takes a transaction-scoped advisory lock before
it reads the last line, so line n is committed only after every line before it, and a reader that has read
up to line n only needs the rows after it (the incremental refresh). Each row's `checkpoint` is the
checkpoint line of the folder layout (`checkpoint.py`), chained to the line before, so the mirror's
`CHECKPOINT` is these lines in order and `lhl verify --export` means the same on either store.

`lhl_warehouse_snapshots` records the warehouse snapshots published to the bucket (`warehouse/snapshots.py`): the
object's SHA-256, the layout and SQL digest of the build, and its coverage, `{stream: [seq, last_chain]}` of the
last manifest row of each stream it staged. A snapshot is recorded only once its object is whole in the bucket.

A lost connection (a PostgreSQL restart) is retried on a new connection for up to `RETRY_SECONDS`; a commit
whose reply was lost is recognised on retry by its row (same stream, seq and hash), so it counts once.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from lhl_platform.domain.errors import flat
from lhl_platform.events.integrity import SegmentEntry
from lhl_platform.events.model import GENESIS, canonical_json
from lhl_platform.events.store import StreamMoved

RETRY_SECONDS = 30.0
_LOCK_KEY = 0x6C686C  # the advisory lock commits take to number their lines

SCHEMA = """
CREATE TABLE IF NOT EXISTS lhl_store (
    id integer PRIMARY KEY CHECK (id = 1),
    store_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS lhl_streams (
    name text PRIMARY KEY,
    ordinal bigserial UNIQUE
);
CREATE TABLE IF NOT EXISTS lhl_segments (
    line bigint PRIMARY KEY,
    stream text NOT NULL REFERENCES lhl_streams (name),
    seq bigint NOT NULL CHECK (seq >= 0),
    count bigint NOT NULL CHECK (count > 0),
    sha256 text NOT NULL,
    prev_head text NOT NULL,
    last_chain text NOT NULL,
    committed_at timestamptz NOT NULL,
    checkpoint text NOT NULL,
    UNIQUE (stream, seq)
);
CREATE TABLE IF NOT EXISTS lhl_warehouse_snapshots (
    sha256 text PRIMARY KEY,
    layout text NOT NULL,
    sql_digest text NOT NULL,
    coverage jsonb NOT NULL,
    events bigint NOT NULL CHECK (events >= 0),
    bytes bigint NOT NULL CHECK (bytes > 0),
    ext text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS lhl_shared_reports (
    key text PRIMARY KEY,
    sha256 text NOT NULL,
    line bigint NOT NULL CHECK (line >= 0),
    body bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
"""

T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    line: int
    stream: str
    seq: int
    count: int
    sha256: str
    prev_head: str
    last_chain: str
    checkpoint: str

    @property
    def entry(self) -> SegmentEntry:
        return SegmentEntry(name=f"{self.seq:010d}.parquet", sha256=self.sha256, first_seq=self.seq,
                            count=self.count, last_chain=self.last_chain)


_COLUMNS = "line, stream, seq, count, sha256, prev_head, last_chain, checkpoint"


class Catalog:
    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None
        self._pid = 0
        self._lock = threading.Lock()  # one connection per process, used by one thread at a time
        self._ready = False
        self._store_id: str | None = None

    def _connect(self) -> Any:
        import psycopg

        if self._conn is None or self._pid != os.getpid() or self._conn.closed:
            self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
            self._pid = os.getpid()
        return self._conn

    def _run(self, work: Callable[[Any], T]) -> T:
        """Run `work(connection)`, again on a new connection while the server is unreachable."""
        import psycopg

        deadline = time.monotonic() + RETRY_SECONDS
        delay = 0.05
        with self._lock:
            while True:
                try:
                    conn = self._connect()
                    if not self._ready:
                        self._ensure_schema(conn)
                    return work(conn)
                except psycopg.OperationalError as exc:
                    if self._conn is not None:
                        self._conn.close()
                    self._conn = None
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the event catalog is unreachable ({flat(exc)})") from None
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)

    def _ensure_schema(self, conn: Any) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY + 1,))  # one creator at a time
            conn.execute(SCHEMA)
            conn.execute("INSERT INTO lhl_store (id, store_id) VALUES (1, %s) ON CONFLICT (id) DO NOTHING",
                         (uuid.uuid4().hex,))
        self._ready = True

    def store_id(self) -> str:
        if self._store_id is None:
            self._store_id = self._run(lambda c: str(c.execute("SELECT store_id FROM lhl_store").fetchone()[0]))
        return self._store_id

    def add_stream(self, name: str) -> None:
        self._run(lambda c: c.execute("INSERT INTO lhl_streams (name) VALUES (%s) ON CONFLICT (name) DO NOTHING",
                                      (name,)))

    def streams(self) -> list[str]:
        return self._run(lambda c: [r[0] for r in c.execute("SELECT name FROM lhl_streams ORDER BY ordinal")])

    def rows_after(self, line: int) -> list[Row]:
        """The committed segments after checkpoint line `line`, in commit order."""
        return self._run(lambda c: [Row(*r) for r in c.execute(
            f"SELECT {_COLUMNS} FROM lhl_segments WHERE line > %s ORDER BY line", (line,))])

    def stream_rows(self, stream: str) -> list[Row]:
        return self._run(lambda c: [Row(*r) for r in c.execute(
            f"SELECT {_COLUMNS} FROM lhl_segments WHERE stream = %s ORDER BY seq", (stream,))])

    def hashes(self) -> set[str]:
        return self._run(lambda c: {r[0] for r in c.execute("SELECT sha256 FROM lhl_segments")})

    def commit(self, stream: str, entry: SegmentEntry, prev_head: str) -> None:
        """Commit one segment on top of the stream's head `(entry.first_seq, prev_head)`; raises StreamMoved
        when another writer's segment is there instead. Committing the same segment again is a no-op."""
        import psycopg

        def attempt(conn: Any) -> None:
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                    head = conn.execute("SELECT seq + count, last_chain FROM lhl_segments WHERE stream = %s "
                                        "ORDER BY seq DESC LIMIT 1", (stream,)).fetchone()
                    if tuple(head or (0, GENESIS)) != (entry.first_seq, prev_head):
                        raise _Conflict
                    last = conn.execute("SELECT line, checkpoint FROM lhl_segments ORDER BY line DESC LIMIT 1"
                                        ).fetchone()
                    line, prev = (last[0] + 1, _line_hash(last[1])) if last else (1, GENESIS)
                    now = datetime.now(UTC)
                    checkpoint = canonical_json({"count": entry.end, "head": entry.last_chain, "prev": prev,
                                                 "stream": stream,
                                                 "time": now.isoformat(timespec="microseconds")})
                    conn.execute("INSERT INTO lhl_segments (line, stream, seq, count, sha256, prev_head, last_chain,"
                                 " committed_at, checkpoint) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                                 (line, stream, entry.first_seq, entry.count, entry.sha256, prev_head,
                                  entry.last_chain, now, checkpoint))
            except (_Conflict, psycopg.errors.UniqueViolation):
                there = conn.execute("SELECT sha256 FROM lhl_segments WHERE stream = %s AND seq = %s",
                                     (stream, entry.first_seq)).fetchone()
                if there is not None and there[0] == entry.sha256:
                    return  # committed already: this is a retry whose first reply was lost
                raise StreamMoved(stream) from None

        self._run(attempt)


    # --- warehouse snapshots ------------------------------------------------------------------------------

    def add_snapshot(self, snapshot: SnapshotRow) -> bool:
        """Record a snapshot whose object is in the bucket; False when it was recorded already."""
        return bool(self._run(lambda c: c.execute(
            "INSERT INTO lhl_warehouse_snapshots (sha256, layout, sql_digest, coverage, events, bytes, ext) "
            "VALUES (%s, %s, %s, %s::jsonb, %s, %s, %s) ON CONFLICT (sha256) DO NOTHING",
            (snapshot.sha256, snapshot.layout, snapshot.sql_digest, json.dumps(snapshot.coverage, sort_keys=True),
             snapshot.events, snapshot.bytes, snapshot.ext)).rowcount == 1))

    def snapshots(self, layout: str | None = None, sql_digest: str | None = None) -> list[SnapshotRow]:
        """The recorded snapshots (of one layout and SQL digest), newest first: the one covering the most events
        first, then the latest recorded."""
        where, params = [], []
        for column, value in (("layout", layout), ("sql_digest", sql_digest)):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        sql = ("SELECT sha256, layout, sql_digest, coverage, events, bytes, ext, created_at "
               "FROM lhl_warehouse_snapshots" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY events DESC, created_at DESC, sha256")
        return self._run(lambda c: [_snapshot(r) for r in c.execute(sql, params)])

    def covers(self, coverage: dict[str, tuple[int, str]]) -> bool:
        """Whether each (stream, seq, last_chain) of a snapshot's coverage is a committed manifest row."""
        if not coverage:
            return True
        streams = sorted(coverage)
        found = self._run(lambda c: c.execute(
            "SELECT count(*) FROM lhl_segments s JOIN unnest(%s::text[], %s::bigint[], %s::text[]) AS c(stream, seq,"
            " head) ON s.stream = c.stream AND s.seq = c.seq AND s.last_chain = c.head",
            (streams, [coverage[s][0] for s in streams], [coverage[s][1] for s in streams])).fetchone()[0])
        return int(found) == len(streams)

    def drop_snapshot(self, sha256: str) -> None:
        self._run(lambda c: c.execute("DELETE FROM lhl_warehouse_snapshots WHERE sha256 = %s", (sha256,)))

    # --- the head and the reports rendered at it ----------------------------------------------------------

    def head(self) -> tuple[int, str]:
        """The last checkpoint line and its text ((0, "") before the first commit): each line names the one
        before it by hash, so the last one names every commit."""
        row = self._run(lambda c: c.execute("SELECT line, checkpoint FROM lhl_segments ORDER BY line DESC LIMIT 1"
                                            ).fetchone())
        return (int(row[0]), str(row[1])) if row else (0, "")

    def shared_report(self, key: str) -> tuple[str, bytes] | None:
        """The report recorded under `key`: (its SHA-256, its bytes), if any."""
        row = self._run(lambda c: c.execute("SELECT sha256, body FROM lhl_shared_reports WHERE key = %s", (key,))
                        .fetchone())
        return (str(row[0]), bytes(row[1])) if row else None

    def add_shared_report(self, key: str, sha256: str, line: int, body: bytes) -> None:
        self._run(lambda c: c.execute("INSERT INTO lhl_shared_reports (key, sha256, line, body) VALUES "
                                      "(%s, %s, %s, %s) ON CONFLICT (key) DO NOTHING", (key, sha256, line, body)))

    def drop_shared_reports_before(self, lines: int) -> int:
        """Forget the reports of all but the newest `lines` distinct lines reports were recorded at; how many."""
        return int(self._run(lambda c: c.execute(
            "DELETE FROM lhl_shared_reports WHERE line NOT IN (SELECT DISTINCT line FROM lhl_shared_reports "
            "ORDER BY line DESC LIMIT %s)", (lines,)).rowcount))


@dataclass(frozen=True)
class SnapshotRow:
    sha256: str
    layout: str
    sql_digest: str
    coverage: dict[str, tuple[int, str]]  # stream -> (seq, last_chain) of the last manifest row it covers
    events: int  # events covered, all streams together
    bytes: int
    ext: str
    created_at: datetime | None = None


def _snapshot(row: tuple[Any, ...]) -> SnapshotRow:
    raw = row[3] if isinstance(row[3], dict) else json.loads(row[3])
    coverage = {str(k): (int(v[0]), str(v[1])) for k, v in raw.items()}
    return SnapshotRow(str(row[0]), str(row[1]), str(row[2]), coverage, int(row[4]), int(row[5]), str(row[6]),
                       row[7])


class _Conflict(Exception):
    pass


def _line_hash(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()
