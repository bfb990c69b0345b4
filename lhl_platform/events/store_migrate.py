"""`lhl home migrate`: copy a folder home's event log (and its stored corpora) into a shared store, then verify
the copy from the shared store alone.

The folder is verified first (a damaged log is not copied). Each segment keeps its bytes, so every chain
hash, payload hash and stream head is the same in the copy; the copy's checkpoint is the shared store's own
(one line per segment committed). A copy cut short is resumed by running the command again: segments already
committed with the same hash are skipped, and one committed with other bytes is refused.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lhl_platform.events.integrity import INGEST_STREAM, DamagedLogError, read_manifest
from lhl_platform.events.log import EventLog
from lhl_platform.events.model import GENESIS
from lhl_platform.events.store import FOLDER
from lhl_platform.events.store_objects import SEGMENTS
from lhl_platform.events.store_shared import SharedStore
from lhl_platform.events.verify import VerifyReport, verify_log


@dataclass(frozen=True)
class Migration:
    copied: int  # segments committed to the shared store
    present: int  # segments the shared store already held (a resumed copy)
    check: VerifyReport  # the copy, verified from the shared store alone


def migrate(events_root: Path, corpora_dir: Path, store: SharedStore) -> Migration:
    source = EventLog(events_root, store=FOLDER)
    report = verify_log(source, corpora_dir=corpora_dir)
    if not report.ok:
        raise DamagedLogError("events", f"not copying a log that does not verify: {report.summary()}")
    copied = present = 0
    for stream in source.streams():
        store.catalog.add_stream(stream)
        there = {row.seq: row for row in store.catalog.stream_rows(stream)}
        prev = GENESIS
        for entry in read_manifest(events_root / stream, events_root):
            row = there.get(entry.first_seq)
            if row is not None:
                if row.entry != entry:
                    raise ValueError(f"stream {stream} in the shared store differs from the folder's at seq "
                                     f"{entry.first_seq}: not a copy of this home")
                present += 1
            else:
                data = (events_root / stream / entry.name).read_bytes()
                if hashlib.sha256(data).hexdigest() != entry.sha256:
                    raise DamagedLogError(f"events/{stream}/{entry.name}", "changed while it was being copied")
                store.objects.put(store.objects.key(SEGMENTS, entry.sha256), data)
                if stream == INGEST_STREAM:
                    store.upload_corpora(corpora_dir, data)
                store.catalog.commit(stream, entry, prev)
                copied += 1
            prev = entry.last_chain
    with tempfile.TemporaryDirectory(prefix="lhl-migrate-") as tmp:
        copy = EventLog(Path(tmp) / "events", store=store)
        check = verify_log(copy, corpora_dir=Path(tmp) / "corpora")
    if not check.ok:
        raise DamagedLogError("shared store", f"the copy does not verify: {check.summary()}")
    differ = sorted(s for s, head in report.heads.items() if check.heads.get(s) != head)
    if differ:
        raise DamagedLogError("shared store", f"the copy's heads differ from the folder's for {', '.join(differ)} "
                              "(another home writes to these streams of the shared store)")
    return Migration(copied=copied, present=present, check=check)
