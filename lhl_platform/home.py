"""The home folder (`--home`, `LHL_HOME`, default `./.lhl`): event log, corpora, Dagster instance, warehouse."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lhl_platform.events.log import EventLog

DEFAULT_HOME = ".lhl"


@dataclass(frozen=True)
class Home:
    root: Path

    @staticmethod
    def resolve(explicit: str | os.PathLike[str] | None = None) -> Home:
        chosen = explicit or os.environ.get("LHL_HOME") or DEFAULT_HOME
        return Home(Path(chosen).expanduser().resolve())

    @property
    def events(self) -> EventLog:
        from lhl_platform.events.log import EventLog  # pyarrow: only when the log is read or written

        return EventLog(self.root / "events")

    @property
    def corpora_dir(self) -> Path:
        return self.root / "corpora"

    @property
    def dagster_dir(self) -> Path:
        return self.root / "dagster"

    @property
    def warehouse_path(self) -> Path:
        """The warehouse folder: its builds and Parquet files (`lhl_platform/warehouse/store.py`)."""
        return self.root / "warehouse"

    def ensure(self) -> Home:
        for folder in (self.root, self.root / "events", self.corpora_dir, self.dagster_dir):
            folder.mkdir(parents=True, exist_ok=True)
        dagster_yaml = self.dagster_dir / "dagster.yaml"
        if not dagster_yaml.exists():
            # Telemetry off: the platform runs with no network beyond the model providers.
            dagster_yaml.write_text("telemetry:\n  enabled: false\n")
        return self
