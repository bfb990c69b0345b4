"""Dagster resources: the platform home (event log, corpora, warehouse) injected into assets and checks."""


import os

from dagster import ConfigurableResource
from pydantic import Field

from lhl_platform.home import Home


class LhlHome(ConfigurableResource):  # type: ignore[misc]
    """The `lhl` home folder. Defaults to `LHL_HOME` (or `./.lhl`), the same rule as the CLI."""

    path: str = Field(default_factory=lambda: os.environ.get("LHL_HOME", ".lhl"),
                      description="folder holding the event log, stored corpora and the DuckDB warehouse")

    def home(self) -> Home:
        return Home.resolve(self.path).ensure()
