"""Dagster resources: the platform home (event log, corpora, warehouse) injected into assets and checks,
and where failing checks are reported (see `resources.alerts`)."""


import os

from dagster import ConfigurableResource
from pydantic import Field

from lhl_platform.domain.redaction import install_log_redaction
from lhl_platform.home import Home
from resources.alerts import AlertHook, hook_for

# Every process that loads the code location (code servers, run and step workers, the CLI) redacts
# credentials from the log records it creates: what the assets log reaches Dagster's storage redacted.
install_log_redaction()


class LhlHome(ConfigurableResource):  # type: ignore[misc]
    """The `lhl` home folder. Defaults to `LHL_HOME` (or `./.lhl`), the same rule as the CLI."""

    path: str = Field(default_factory=lambda: os.environ.get("LHL_HOME", ".lhl"),
                      description="folder holding the event log, stored corpora and the DuckDB warehouse")
    alerts: str = Field(default_factory=lambda: os.environ.get("LHL_ALERTS", "log"),
                        description="where failing checks are reported: 'log', a webhook URL (JSON POST) or "
                                    "'module:attribute' naming a hook of your own (env LHL_ALERTS)")

    def home(self) -> Home:
        return Home.resolve(self.path).ensure()

    def alert_hook(self) -> AlertHook:
        return hook_for(self.alerts)
