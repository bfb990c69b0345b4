"""Reports as printed, shared between the machines of one shared store: a new pod asked for a report another
machine has printed at the same events prints it without fetching a segment or restoring a warehouse.

A report is a function of the committed events, the code and what was asked (`served.py`). On a shared store the
events are named by the catalog's head (its last checkpoint line, whose hash chains every commit before it), the
code by the bytes of its files (`code_content_digest`: a checkout's modification times differ between machines)
and the registrations (only the platform's own: a test's suite is never shared). Their hash is the key.

Publishing. A machine that has printed a report records it only when its mirror stood at the same head before
and after the report was made (so the warehouse it read held exactly those events): the text, its SHA-256 and the
head's line, under its key, in the catalog (`lhl_shared_reports`). In the database, not the bucket: a pod's first
command then needs one round trip to the server it asks for the head anyway, and no object-store client (whose
start-up alone costs what the rest of a served report does). A failure, the check of the mirror's head included,
is a warning: the report stands and is printed.

Reading. The catalog's head gives the key; a recorded report is printed only when its bytes hash to the SHA-256
recorded with them (a damaged one is refused in a warning naming its key, and the report is made as before). That
catches damage, not a forger with write access to the catalog, which is trusted as it is for the segments' hashes.
A served report reads no segment, so damage in the bucket shows in `lhl verify`, not in it. `lhl home gc` forgets
the reports of all but the newest `KEEP` lines at which reports were recorded.

`LHL_SHARED_REPORTS=off` neither publishes nor reads (as does `LHL_FIGURE_CACHE=off`, which turns off every kept
report).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lhl_platform.code_digest import code_content_digest, code_digest
from lhl_platform.domain.errors import flat
from lhl_platform.home_cache import folder, kept, switched_on

if TYPE_CHECKING:
    from lhl_platform.events.store_shared import SharedStore
    from lhl_platform.home import Home

SWITCH = "LHL_SHARED_REPORTS"
_SHARED_MODULE = "lhl_platform.events.store_shared"
KEEP = 3  # heads whose reports `lhl home gc` keeps

_log = logging.getLogger("lhl.report")


@dataclass(frozen=True)
class SharedReports:
    store: SharedStore
    home: Home
    code: str  # the code and registrations, portable

    def key(self, head: str, asked: Mapping[str, Any]) -> str:
        return hashlib.sha256(json.dumps({"head": head, "asked": dict(asked), "code": self.code}, sort_keys=True,
                                         default=str).encode()).hexdigest()

    def mirror_head(self) -> str | None:
        """The head of this home's mirror as it stands."""
        return self.store.mirror_head(self.home.events.root)

    def mirror_head_now(self) -> str | None:
        """The same once the mirror has read every commit."""
        self.home.events.refresh()
        return self.mirror_head()

    def read(self, asked: Mapping[str, Any]) -> str | None:
        """The report printed at the catalog's head, if one was recorded and its bytes check; else None."""
        key = None
        try:
            key = self.key(self.store.head(), asked)
            found = self.store.catalog.shared_report(key)
        except Exception as exc:  # noqa: BLE001 - the report is then made here
            _log.warning("shared reports unavailable (%s)", flat(exc))
            return None
        if found is None:
            return None
        sha, data = found
        if hashlib.sha256(data).hexdigest() != sha:
            _log.warning("shared report %s refused: its bytes differ from the SHA-256 recorded for it", key)
            return None
        return data.decode()

    def publish_if_unmoved(self, head: str | None, asked: Mapping[str, Any], text: str) -> None:
        """Record `text` as the report asked at `head` when the mirror still stands there (so the report was made
        from exactly its events); a failure is a warning."""
        if head is None:
            return
        data = text.encode()
        try:
            if self.mirror_head() != head:
                return
            self.store.catalog.add_shared_report(self.key(head, asked), hashlib.sha256(data).hexdigest(),
                                                 int(head.split(":")[1]), data)
        except Exception as exc:  # noqa: BLE001 - the report stands; only sharing it failed
            _log.warning("report not shared with the other machines (%s)", flat(exc))


def shared_reports(home: Home) -> SharedReports | None:
    """The shared reports of the home's store; None for a folder home, with `LHL_SHARED_REPORTS=off`, or when a
    registration is not the platform's own."""
    if not switched_on(SWITCH):
        return None
    store = home.events.store
    if _SHARED_MODULE not in sys.modules:  # the home's store is not a shared one: no need to import it (pyarrow)
        return None
    from lhl_platform.events.store_shared import SharedStore
    from lhl_platform.warehouse.sql_digest import registrations_key

    if not isinstance(store, SharedStore):
        return None
    # the files' bytes are read once per state of the files: kept in the home under their stat key
    code = registrations_key(kept(folder(home, "code"), code_digest(), code_content_digest, str, str, keep=4))
    return None if code is None else SharedReports(store, home, code)


def collect_shared_reports(store: SharedStore, keep: int = KEEP) -> int:
    """Forget the reports of all but the newest `keep` heads; returns how many."""
    return store.catalog.drop_shared_reports_before(keep)
