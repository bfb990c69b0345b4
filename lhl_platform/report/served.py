"""A report as printed, kept in the home and printed again while nothing it is rendered from has changed: the
warehouse's build (its fingerprint: the committed events, the stored corpora and the SQL), what was asked (suite,
format, scope, bootstrap, scheme) and the code (`lhl_platform.code_digest`). A report after the first of a build
then reads neither the warehouse nor its rows, and loads none of the report's modules.

Only an up-to-date build is a key (`warehouse.build.current_fingerprint`, which checks the committed segments as
every read does): while the warehouse has events to take in, the report is built as always, which refreshes it
first. Entries are kept and sealed as every cache in the home is (`lhl_platform/home_cache.py`; `LHL_FIGURE_CACHE=off`
turns it off).

On a shared store a report is first looked up among those other machines printed at the same events
(`shared.py`), and one printed here is recorded there.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from lhl_platform.code_digest import code_digest
from lhl_platform.home import Home
from lhl_platform.home_cache import folder, kept, switched_on
from lhl_platform.report.shared import shared_reports
from lhl_platform.warehouse.build import current_fingerprint

KEEP = 32  # a few formats and scopes of each of a few builds


def served_report(home: Home, asked: Mapping[str, Any], render: Callable[[], str]) -> str:
    """`render()`, or the text it gave before for the same build, request and code."""
    if not switched_on():
        return render()
    shared = shared_reports(home)
    before = None
    if shared is not None:
        if (text := shared.read(asked)) is not None:
            return text
        before = shared.mirror_head_now()
    build = current_fingerprint(home)
    if build is None:
        text = render()
    else:
        key = hashlib.sha256(json.dumps({"build": build, "asked": asked, "code": code_digest()}, sort_keys=True)
                             .encode()).hexdigest()
        text = kept(folder(home, "reports"), key, render, str, str, keep=KEEP)
    if shared is not None:
        shared.publish_if_unmoved(before, asked, text)
    return text
