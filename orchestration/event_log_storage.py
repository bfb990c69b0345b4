"""Dagster's SQLite event log with its connections kept open: the same files, read and written the same way.

Dagster's `SqliteEventLogStorage` builds an engine, opens a connection and closes it again for every event it
stores (a run's shard, then the cross-run index): a metrics run stores some 600 events, and the connects, the
statement compiles of each new engine and the WAL checkpoint at each last close were about a third of its time.
This subclass keeps one pooled engine per shard for the life of the instance (the newest few shards; an evicted
one is disposed), so its statement cache and connection survive between events. The files, the schema and the
WAL journal are Dagster's own: the UI, the daemon and any other process open the same home with the standard
storage, side by side."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._serdes import ConfigurableClassData
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool

MODULE = __name__
CLASS = "PooledSqliteEventLogStorage"
OPEN_SHARDS = 8  # the index and the few runs a process writes at a time


class PooledSqliteEventLogStorage(SqliteEventLogStorage):
    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        super().__init__(base_dir, inst_data=inst_data)

    @classmethod
    def from_config_value(
            cls, inst_data: ConfigurableClassData | None, config_value: Mapping[str, Any],
    ) -> PooledSqliteEventLogStorage:
        return cls(inst_data=inst_data, **config_value)

    def _engine(self, shard: str) -> Engine:
        engine = self._engines.get(shard)
        if engine is None:
            # One connection per shard is enough: `_db_lock` serializes every use within the process.
            engine = create_engine(self.conn_string_for_shard(shard), poolclass=QueuePool, pool_size=1,
                                   max_overflow=1, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
                                                                 "check_same_thread": False})
            self._engines[shard] = engine
            while len(self._engines) > OPEN_SHARDS:
                self._engines.popitem(last=False)[1].dispose()
        else:
            self._engines.move_to_end(shard)
        return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def _close_all(self) -> None:
        with self._db_lock:
            while self._engines:
                self._engines.popitem()[1].dispose()

    def wipe(self) -> None:
        self._close_all()  # the shard files are removed: no connection may keep writing to them
        super().wipe()

    def dispose(self) -> None:
        self._close_all()
        super().dispose()


def overrides(base_dir: str) -> dict[str, Any]:
    """The instance overrides that put this storage on an instance folder's default event log location."""
    return {"event_log_storage": {"module": MODULE, "class": CLASS, "config": {"base_dir": base_dir}}}
