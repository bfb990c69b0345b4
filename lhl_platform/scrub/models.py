"""The suite's offline models, registered with the model factory through `Suite.offline_models` (role
`extractor`, the role of any model under test):

- `scrub-rules`: the rule-based scrubber (`offline.rules_answer`), a baseline that never sees the gold;
- `scrub-calibrated:<profile>`: the calibration tool for each declared profile (`offline.PROFILES`), which reads
  the gold of the recorded item sets and drops or adds findings at the profile's rates.

The calibration tool answers a task from the gold of the recorded item whose contract id and text are the
task's (the newest set holding it), so a partition of any recorded set gets its own gold. Its version names its
profile and the gold of every recorded set, so its answers are never replayed for other gold.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from lhl_platform.factory import BuildContext, OfflineEntry
from lhl_platform.providers.base import Task
from lhl_platform.providers.offline.adapter import OfflineModel
from lhl_platform.scrub.offline import (
    CALIBRATION_VERSION,
    PROFILES,
    RULES_VERSION,
    CalibrationTool,
    ScrubTaskError,
    rules_answer,
)
from lhl_platform.scrub.task import ScrubTask

RULES = "scrub-rules"
CALIBRATED = "scrub-calibrated"


def calibrated(profile: str) -> str:
    """The model id of a calibration profile."""
    return f"{CALIBRATED}:{profile}"


def _rules(model_id: str, ctx: BuildContext) -> OfflineModel:
    return OfflineModel(model_id, RULES_VERSION, rules_answer)


def _calibrated(model_id: str, ctx: BuildContext) -> OfflineModel:
    from lhl_platform.scrub.store import all_sets

    profile = PROFILES[model_id.split(":", 1)[1]]
    # Built without a home (a launcher checking that the model exists), it knows no gold and answers nothing.
    sets = all_sets(ctx.home) if ctx.home is not None else []
    newest_first = list(reversed(sets))
    tools = [CalibrationTool(profile, s.items, ctx.run) for s in newest_first]
    texts: dict[tuple[str, str], int] = {}
    for n, stored in enumerate(newest_first):
        for item in stored.items:
            texts.setdefault((item.contract_id, item.text_sha256), n)

    def answer(task: Task) -> BaseModel:
        if not isinstance(task, ScrubTask):
            raise ScrubTaskError(f"{model_id} answers scrub tasks only, not {task.kind!r}")
        found = texts.get((task.contract_id, hashlib.sha256(task.contract_text.encode("utf-8")).hexdigest()))
        if found is None:
            raise ScrubTaskError(f"{model_id} has no gold for contract {task.contract_id!r} with this text (no "
                                 "recorded item set holds it)")
        return tools[found].answer(task)

    gold = hashlib.sha256("|".join(t.version for t in tools).encode()).hexdigest()[:12]
    profile_digest = hashlib.sha256(profile.model_dump_json().encode()).hexdigest()[:12]
    return OfflineModel(model_id, f"{CALIBRATION_VERSION}:{profile.name}:{profile_digest}:{gold}", answer)


OFFLINE_MODELS: dict[str, OfflineEntry] = {
    RULES: OfflineEntry("extractor", _rules, "ContractScrub rule-based scrubber: definition registry, capitalisation "
                                             "and usage scans, cross-reference resolution, party-name checks"),
    **{calibrated(name): OfflineEntry("extractor", _calibrated, f"ContractScrub calibration tool ({p.description}): "
                                                                "reads the gold, drops and adds findings at declared "
                                                                "rates per category", "simulated")
       for name, p in PROFILES.items()},
}
