"""Which suite a registered model belongs to: an offline or simulated system is its suite's own, an API model is
usable by every suite. Above the registry, since it reads the registered suites."""

from __future__ import annotations

from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import RegistryError, list_models, registered_model
from lhl_platform.suites import suites


def owning_suite(spec: ModelSpec) -> str | None:
    """The suite an offline or simulated system belongs to: the one whose offline models (`Suite.offline_models`)
    register its model id for its role; None for an API model (usable in every suite) or an id no suite has."""
    if spec.provider != "offline":
        return None
    for suite in suites():
        entry = suite.offline_models.get(spec.model_id)
        if entry is not None and entry.role == spec.role:
            return str(suite.name)
    return None


def fits_suite(spec: ModelSpec, suite: str) -> bool:
    """Whether a registered extractor can be audited by `suite`: an API model, or one of the suite's own."""
    return spec.role == "extractor" and owning_suite(spec) in (None, suite)


def get_audited(home: Home, name: str, suite: str) -> ModelSpec:
    """A model `suite`'s audit can run: refused in one line when it is unknown (listing only the models that fit
    the suite), a judge, or another suite's offline system (naming the suite it belongs to)."""
    spec = registered_model(home, name)
    fitting = ", ".join(m.name for m in list_models(home) if fits_suite(m, suite)) or "none"
    if spec is None:
        raise RegistryError(f"model {name!r} is not registered (models suite {suite} can audit: {fitting}); use "
                            "`lhl models add`")
    if spec.role != "extractor":
        raise RegistryError(f"model {name!r} is a {spec.role}, not a model under test (models suite {suite} can "
                            f"audit: {fitting})")
    owner = owning_suite(spec)
    if owner is not None and owner != suite:
        raise RegistryError(f"model {name!r} ({spec.provider}:{spec.model_id}) belongs to suite {owner}: audit it "
                            f"with `lhl audit --suite {owner} --models {name}` (models suite {suite} can audit: "
                            f"{fitting})")
    return spec
