"""Build the ChatModel behind a registered ModelSpec.

LLM providers are the platform's own. Offline models (extractors, judges, scrubbers, responders: documented
algorithms presented as models) are registered by the suites they belong to (`register_offline_models`, into the
active catalog: `lhl_platform.registries`), each for the roles it can play, so the factory knows no suite and no
suite knows another's models.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from lhl_platform.domain.models import ModelSpec, OracleRow
from lhl_platform.home import Home
from lhl_platform.providers.base import ChatModel
from lhl_platform.providers.offline.adapter import OfflineModel
from lhl_platform.registries import active

LLM_PROVIDERS = ("openai", "anthropic", "gemini")
# What a registered model is for: the model under test of any suite, or a judge that scores answers.
ROLES = {"extractor": "a model under test (extracts clauses, scrubs contracts, answers queries)",
         "judge": "a judge that scores other models' answers"}


class ProviderError(ValueError):
    pass


@dataclass(frozen=True)
class BuildContext:
    """What an offline builder may need beyond the spec: the audit round, the home, and (for calibration tools
    that read the answer key) the corpus oracle."""

    run: int = 1
    oracle: Iterable[OracleRow] = ()
    home: Home | None = None


OfflineBuilder = Callable[[str, BuildContext], OfflineModel]


# What an offline system is, as every report names it beside the system (`lhl_platform/report/system_nature.py`):
# a documented algorithm, or a calibration tool that simulates a model from the answer key, or one that reads it.
OFFLINE_NATURES = ("algorithm", "simulated", "gold_reader")


@dataclass(frozen=True)
class OfflineEntry:
    """An offline model a suite provides: the role it plays, how to build it and what it is (`OFFLINE_NATURES`)."""

    role: str
    build: OfflineBuilder
    description: str = ""
    nature: str = "algorithm"


def register_offline_models(models: Mapping[str, OfflineEntry]) -> None:
    for model_id, entry in models.items():
        if entry.role not in ROLES:
            raise ProviderError(f"offline model {model_id!r} has an unknown role {entry.role!r}")
        if entry.nature not in OFFLINE_NATURES:
            raise ProviderError(f"offline model {model_id!r} has an unknown nature {entry.nature!r}")
        active().offline_entries[(entry.role, model_id)] = entry  # by (role, model id); loads no other suite


def offline_models(role: str) -> dict[str, OfflineEntry]:
    """The registered offline models that play this role, by model id."""
    return {model_id: entry for (r, model_id), entry in sorted(active().offline.items()) if r == role}


def validate_spec(spec: ModelSpec) -> None:
    if spec.role not in ROLES:
        raise ProviderError(f"unknown role {spec.role!r}; choose one of: " + ", ".join(ROLES))
    if spec.provider == "offline":
        allowed = offline_models(spec.role)
        if spec.model_id not in allowed:
            raise ProviderError(f"offline {spec.role} {spec.model_id!r} does not exist; choose one of: "
                                + ", ".join(allowed))
    elif spec.provider not in LLM_PROVIDERS:
        raise ProviderError(f"unknown provider {spec.provider!r}; choose offline, " + ", ".join(LLM_PROVIDERS))


def build_model(spec: ModelSpec, *, run: int = 1, oracle: Iterable[OracleRow] = (),
                home: Home | None = None) -> ChatModel:
    """The ChatModel behind a spec. Calibration tools need the answer key (`oracle`, or the `home` to read it
    from). For an LLM provider this fails at once, before any work, when its API key is not in the environment."""
    validate_spec(spec)
    if spec.provider == "openai":
        from lhl_platform.providers.llm.openai_chat import OpenAIChatModel

        return OpenAIChatModel(spec)
    if spec.provider == "anthropic":
        from lhl_platform.providers.llm.anthropic_messages import AnthropicModel

        return AnthropicModel(spec)
    if spec.provider == "gemini":
        from lhl_platform.providers.llm.gemini import GeminiModel

        return GeminiModel(spec)
    entry: OfflineEntry = active().offline[(spec.role, spec.model_id)]
    return entry.build(spec.model_id, BuildContext(run=run, oracle=oracle, home=home))
