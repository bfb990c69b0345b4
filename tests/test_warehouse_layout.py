"""A reader that finds the current build is of an older layout while another writer is busy waits its turn.

Readers never wait for a writer while the current build is one today's code can read (tests/test_warehouse.py).
A build of an older layout (`LAYOUT` bumped since it was built, recorded in the build's `_lhl_build` table) is not
one: its tables are not what today's SQL reads. Such a reader takes its turn after the writer instead, and then
reads a build of today's layout.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import threading
from typing import Any

from lhl_platform.home import Home
from lhl_platform.warehouse import sql_digest as layout
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.sql_digest import sql_digest
from lhl_platform.warehouse.store import Store


class _Watched(io.StringIO):
    """stderr, which says when a writer's turn is being waited for (the line `Store.writing` prints just before
    it blocks on the lock)."""

    def __init__(self, *events: threading.Event) -> None:
        super().__init__()
        self.events = events

    def write(self, text: str) -> int:
        written = super().write(text)
        if "to finish writing the warehouse" in self.getvalue():
            for event in self.events:
                event.set()
        return written


def _read(home: Home) -> dict[str, Any]:
    with read_warehouse(home) as con:
        built = dict(con.execute("select name, value from _lhl_build").fetchall())
        return {"sql": built["sql"], "build": int(built["build"]),
                "leaderboard": con.execute("select * from leaderboard order by all").fetchall()}


def test_a_reader_of_an_older_layout_build_waits_for_the_busy_writer_then_reads_todays_build(
        demo_home, tmp_path, monkeypatch):
    shutil.copytree(demo_home, tmp_path / "demo")
    home = Home.resolve(tmp_path / "demo")
    store = Store(home.warehouse_path)
    before = _read(home)  # today's layout still: read without waiting, nothing rebuilt
    old = store.current()
    assert old is not None and before["build"] == old.build

    # The layout bumped since the current build was written: it recorded the SQL digest of the layout before.
    monkeypatch.setattr(layout, "LAYOUT", str(int(layout.LAYOUT) + 1))
    assert before["sql"] != sql_digest()

    waiting, progressed, done = threading.Event(), threading.Event(), threading.Event()
    result: dict[str, Any] = {}
    said = _Watched(waiting, progressed)
    monkeypatch.setattr(sys, "stderr", said)

    def reader() -> None:
        try:
            result["read"] = _read(home)
        except BaseException as exc:  # handed to the test's thread
            result["error"] = exc
        finally:
            done.set()
            progressed.set()

    thread = threading.Thread(target=reader, daemon=True)
    with store.writing():  # a busy writer: the real lock, held by this thread until the reader waits for it
        thread.start()
        assert progressed.wait(60), "the reader neither waited for the writer nor returned"
        assert not done.is_set(), "the reader read the older build while the writer was busy"
        assert waiting.is_set() and f"waiting for pid {os.getpid()}" in said.getvalue()
        assert not done.wait(0.2)  # still waiting: the lock is held
    thread.join(120)
    assert done.is_set() and "error" not in result, result.get("error")

    after = result["read"]
    current = store.current()
    assert current is not None and current.build > old.build
    assert after["sql"] == sql_digest() and after["build"] == current.build  # today's layout, built in its turn
    assert after["leaderboard"] == before["leaderboard"]  # from the same events
    assert not (home.warehouse_path / old.catalog).exists()  # the older build, read by nobody now, is gone
