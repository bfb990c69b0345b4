"""What each system in a report is, said wherever its name is read: a real model behind a provider's API, a
documented offline algorithm, a calibration tool that simulates a model from the answer key, or one that reads
the answer key outright. A lawyer reading "scrub-gpt-5.5-calibrated" must not take it for GPT-5.5.

The nature is read when the report is built: the system's latest registration (`int_model_prices`) gives its
provider, and an offline system's own suite declares what it is (`OfflineEntry.nature`, `lhl_platform/factory.py`).
Only the offline models already registered are looked at, so a report loads no other suite. A debate system
(`<backbone>+debate`) is what its backbone is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    import duckdb

Nature = Literal["model", "algorithm", "simulated", "gold_reader", "offline", "unregistered"]

# The tag shown beside a name (none for a real model), and the sentence that explains it.
# A system the registry does not hold (results imported from elsewhere, say) is not tagged: nothing is known of it.
TAGS: dict[str, str] = {"algorithm": "offline algorithm", "simulated": "simulated from the gold",
                        "gold_reader": "reads the answer key", "offline": "offline system"}
MEANING: dict[str, str] = {
    "model": "a model called through its provider's API",
    "algorithm": "a documented offline algorithm, not a language model",
    "simulated": "a calibration tool that reads the answer key and perturbs it at declared rates: it simulates a "
                 "model, its figures say nothing of how any real model performs",
    "gold_reader": "reads the answer key and answers from it: an upper bound no real model can reach",
    "offline": "an offline system, not a language model",
    "unregistered": "a system the registry does not hold, so what it is is unknown",
}


class SystemNature(BaseModel):
    """One system of the report and what it is."""

    model: str
    nature: Nature
    provider: str | None = None
    model_id: str | None = None

    @property
    def stand_in(self) -> bool:
        """Known not to be a real model: an offline algorithm or calibration tool."""
        return self.nature in TAGS


def nature_of(model: str, registered: Mapping[str, tuple[str, str, str]]) -> SystemNature:
    """`registered`: name -> (provider, model id, role), each system's latest registration."""
    spec = registered.get(model) or registered.get(model.partition("+")[0])
    if spec is None:
        return SystemNature(model=model, nature="unregistered")
    provider, model_id, role = spec
    if provider != "offline":
        return SystemNature(model=model, nature="model", provider=provider, model_id=model_id)
    from lhl_platform.registries import active

    entry = active().offline_entries.get((role, model_id))  # registered ones only: loads no other suite
    nature = getattr(entry, "nature", None) or "offline"
    return SystemNature(model=model, nature=nature, provider=provider, model_id=model_id)


def natures_of(con: duckdb.DuckDBPyConnection, models: Iterable[str]) -> list[SystemNature]:
    """The nature of each of `models`, from the warehouse's registrations."""
    registered = {name: (provider, model_id, role) for name, provider, model_id, role in con.execute(
        "select name, provider, model_id, role from int_model_prices").fetchall()}
    return [nature_of(m, registered) for m in dict.fromkeys(models)]


def tag(model: str, natures: Mapping[str, SystemNature]) -> str | None:
    found = natures.get(model)
    return None if found is None or not found.stand_in else TAGS[found.nature]


def shown_name(model: str, natures: Mapping[str, SystemNature]) -> str:
    """The name as a reader sees it: "sim-inventor (simulated from the gold)"; a real model's name as it is."""
    label = tag(model, natures)
    return model if label is None else f"{model} ({label})"


def by_model(natures: Iterable[SystemNature]) -> dict[str, SystemNature]:
    return {n.model: n for n in natures}


def named_in(text: str, natures: Mapping[str, SystemNature], seen: set[str] | None = None) -> str:
    """`text` with each system's name, where it stands as a whole name, followed by its tag at its first mention
    (apply once)."""
    names = sorted((m for m in natures if tag(m, natures) is not None), key=len, reverse=True)
    if not names:
        return text
    pattern = re.compile(r"(?<![\w+:.-])(" + "|".join(map(re.escape, names)) + r")(?![\w+:-]|\.\w)")
    seen = set() if seen is None else seen  # shared: the tag once across several texts read together

    def first_named(m: re.Match[str]) -> str:  # the tag once per text: a list of figures stays readable
        name = m.group(1)
        if name in seen:
            return name
        seen.add(name)
        return shown_name(name, natures)

    return pattern.sub(first_named, text)


def nature_lines(natures: Iterable[SystemNature]) -> list[str]:
    """One line per system that is not a real model: its name and what it is."""
    return [f"{n.model}: {MEANING[n.nature]}." for n in natures if n.stand_in]


def systems_text(models: Iterable[str], systems: Iterable[SystemNature]) -> str:
    """The scope's systems, each with what it is."""
    natures = by_model(systems)
    return ", ".join(shown_name(m, natures) for m in models) or "none"
