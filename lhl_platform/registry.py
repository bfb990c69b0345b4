"""The model registry, folded from `model.*` events: each registered model is a `model` partition key.

Removing a model appends a `model.removed` event; its audit history stays in the log and the reports.
"""

from __future__ import annotations

from lhl_platform.domain.models import ModelSpec
from lhl_platform.events.model import canonical_json, sha256_hex
from lhl_platform.events.payloads import EventType, JudgePrimarySet, ModelRemoved
from lhl_platform.home import Home

REGISTRY_STREAM = "registry"
BUILTIN_JUDGE = ModelSpec(name="rubric", provider="offline", model_id="rubric", role="judge")


class RegistryError(ValueError):
    pass


def _fold(home: Home) -> dict[str, ModelSpec]:
    models: dict[str, ModelSpec] = {}
    for event in home.events.read(REGISTRY_STREAM):
        data = event.data()
        if isinstance(data, ModelSpec):
            models[data.name] = data
        elif isinstance(data, ModelRemoved):
            models.pop(data.name, None)
    return models


def registered_model(home: Home, name: str) -> ModelSpec | None:
    """The model registered under `name`, or the built-in judge by its name; None when neither."""
    return _fold(home).get(name) or (BUILTIN_JUDGE if name == BUILTIN_JUDGE.name else None)


def list_models(home: Home) -> list[ModelSpec]:
    return sorted(_fold(home).values(), key=lambda s: s.name)


def get_model(home: Home, name: str) -> ModelSpec:
    if name == BUILTIN_JUDGE.name:
        return _fold(home).get(name, BUILTIN_JUDGE)
    spec = _fold(home).get(name)
    if spec is None:
        known = ", ".join(sorted(_fold(home))) or "none"
        raise RegistryError(f"model {name!r} is not registered (registered: {known}); use `lhl models add`")
    return spec


def get_judge(home: Home, name: str) -> ModelSpec:
    """A registered judge (or the built-in one); an unknown name or an extractor is an error naming the judges."""
    spec = _fold(home).get(name) or (BUILTIN_JUDGE if name == BUILTIN_JUDGE.name else None)
    if spec is None or spec.role != "judge":
        what = "is not registered" if spec is None else f"is registered as an {spec.role}, not a judge"
        raise RegistryError(f"judge {name!r} {what} (judges: {', '.join(judges(home))}); register one with "
                            "`lhl models add NAME --provider P --model-id ID --role judge`")
    return spec


def add_model(home: Home, spec: ModelSpec) -> bool:
    """Register a model; returns False when the same spec is already registered."""
    from lhl_platform.factory import validate_spec

    validate_spec(spec)
    existing = _fold(home).get(spec.name)
    if existing == spec:
        return False
    if existing is not None:
        raise RegistryError(f"model {spec.name!r} is already registered with other settings; "
                            "remove it first (`lhl models remove`) or choose another name")
    home.ensure()
    body = spec.model_dump(mode="json")
    # The event count makes the key unique, so a model can be registered again after removal.
    key = f"model.registered:{spec.name}:{sha256_hex(canonical_json(body))}:{_event_count(home)}"
    home.events.append(REGISTRY_STREAM, EventType.MODEL_REGISTERED, spec.name, key, spec)
    return True


def _event_count(home: Home) -> int:
    return len(home.events.read(REGISTRY_STREAM))


def primary_judge(home: Home) -> str:
    """The judge every report uses unless told otherwise: the offline rubric judge, or the latest choice."""
    chosen = [e.data_as(JudgePrimarySet).name for e in home.events.read(REGISTRY_STREAM)
              if e.type == EventType.JUDGE_PRIMARY_SET]
    return chosen[-1] if chosen else BUILTIN_JUDGE.name


def set_primary_judge(home: Home, name: str) -> None:
    get_judge(home, name)
    home.events.append(REGISTRY_STREAM, EventType.JUDGE_PRIMARY_SET, name,
                       f"judge.primary_set:{name}:{_event_count(home)}", JudgePrimarySet(name=name))


def remove_model(home: Home, name: str) -> None:
    get_model(home, name)
    home.events.append(REGISTRY_STREAM, EventType.MODEL_REMOVED, name, f"model.removed:{name}:{_event_count(home)}",
                       ModelRemoved(name=name))


def judges(home: Home) -> list[str]:
    """The built-in judge and every registered one, by name."""
    registered = [m.name for m in list_models(home) if m.role == "judge"]
    return list(dict.fromkeys([BUILTIN_JUDGE.name, *registered]))
